package postgres

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// CPU time for the measurement (measure_test.go): the figure that depends
// least on what else a shared machine runs.

// serverCPU is the CPU time the whole PostgreSQL server has used: its
// postmaster, every live process under it and every one it has reaped
// (backends, autovacuum, WAL writer, checkpointer). ok is false when the
// server is not on this machine or its processes cannot be read.
func serverCPU(ctx context.Context, pool *pgxpool.Pool) (cpu time.Duration, ok bool) {
	var pid int
	if err := pool.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		return 0, false
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	var postmaster int
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "PPid:"); ok {
			postmaster, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	ticks, ok := procTicks(postmaster, true)
	if !ok {
		return 0, false
	}
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", postmaster))
	for _, task := range tasks {
		children, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", postmaster, task.Name()))
		for _, c := range strings.Fields(string(children)) {
			if child, err := strconv.Atoi(c); err == nil {
				n, _ := procTicks(child, false)
				ticks += n
			}
		}
	}
	return time.Duration(ticks) * time.Second / 100, true // USER_HZ is 100 on Linux
}

// backendsCPU is the CPU time each client backend connected to the
// database of pool has used, by process id: the store's own connections
// (the writer and the merger) when nothing else uses that database.
func backendsCPU(ctx context.Context, pool *pgxpool.Pool) map[int]time.Duration {
	rows, err := pool.Query(ctx, `SELECT pid FROM pg_stat_activity
		WHERE datname = current_database() AND backend_type = 'client backend'`)
	if err != nil {
		return nil
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		return nil
	}
	out := map[int]time.Duration{}
	for _, pid := range pids {
		if n, ok := procTicks(pid, false); ok {
			out[pid] = time.Duration(n) * time.Second / 100
		}
	}
	return out
}

// backendsSpent is the CPU time the backends of after used since before.
func backendsSpent(before, after map[int]time.Duration) time.Duration {
	var d time.Duration
	for pid, t := range after {
		d += t - before[pid]
	}
	return d
}

// procTicks is a process's user and system time in clock ticks, with its
// reaped children's when children is set.
func procTicks(pid int, children bool) (int64, bool) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(stat[i+1:])) // f[0] is field 3 (state)
	if len(f) < 15 {
		return 0, false
	}
	last := 12 // utime, stime: fields 14 and 15
	if children {
		last = 14 // and cutime, cstime
	}
	var n int64
	for _, s := range f[11 : last+1] {
		v, _ := strconv.ParseInt(s, 10, 64)
		n += v
	}
	return n, true
}

// cpuPer formats CPU time d spent on n segments.
func cpuPer(d time.Duration, n int) string {
	return fmt.Sprintf("%.1f s, %.0f µs a segment", d.Seconds(), float64(d.Microseconds())/float64(n))
}

// ifOK is v when ok, else nil.
func ifOK[T any](v T, ok bool) *T {
	if !ok {
		return nil
	}
	return &v
}
