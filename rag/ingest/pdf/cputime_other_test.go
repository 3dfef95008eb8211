//go:build !unix

package pdf

import "time"

// cpuTime is not measured here: BenchmarkHostile's cpu-ms/MB reads 0.
func cpuTime() time.Duration { return 0 }
