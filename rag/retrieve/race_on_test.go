//go:build race

package retrieve

// raceEnabled is true when the tests run with the race detector, which
// makes embedding a whole corpus ten times slower.
const raceEnabled = true
