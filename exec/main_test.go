package exec

import (
	"os"
	"testing"
)

// TestMain lets the package's tests reach the parallel operators with small
// stores: at the production thresholds (minParallelRows,
// parallelQuantileValues) their few thousand rows would run on one worker,
// and the tests that compare one worker with two would compare one with
// one. TestShares checks the first threshold itself.
func TestMain(m *testing.M) {
	minParallelRows = 0
	parallelQuantileValues = 0
	os.Exit(m.Run())
}
