package store

func cleanupBench() {}
