//go:build !race

package lql

const raceEnabled = false
