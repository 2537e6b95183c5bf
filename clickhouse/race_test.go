//go:build race

package clickhouse

// raceEnabled: the race detector is on (TestGoldenCasesAgree samples).
const raceEnabled = true
