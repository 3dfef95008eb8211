// Package cputime reads the CPU time the test process has used, for the
// measurements and benchmarks that report it: the figure that depends
// least on what else a shared machine runs.
package cputime
