//go:build race

package lql

// raceEnabled: the race detector makes sync.Pool drop items, so Match allocates.
const raceEnabled = true
