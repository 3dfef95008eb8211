//go:build unix

package postgres

import (
	"syscall"
	"time"
)

// clientCPU is the CPU time (user and system) this process has used.
func clientCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
