//go:build !unix

package postgres

import "time"

// clientCPU is 0 where the process's CPU time is not read here (the
// measurement's client figure is then 0).
func clientCPU() time.Duration { return 0 }
