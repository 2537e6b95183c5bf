//go:build !race

package clickhouse

const raceEnabled = false
