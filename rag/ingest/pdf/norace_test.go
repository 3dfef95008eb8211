//go:build !race

package pdf

// raceEnabled is true when the tests run with the race detector.
const raceEnabled = false
