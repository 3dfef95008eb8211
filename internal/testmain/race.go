//go:build race

package testmain

// raceEnabled is whether the binary was built with -race.
const raceEnabled = true
