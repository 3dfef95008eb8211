package cli

// The stores a library can live in: the embedded one (folders, and memory
// for evaluations) and PostgreSQL with pgvector (postgres://…).
import (
	_ "github.com/ibid-dev/ibid/store/embedded"
	_ "github.com/ibid-dev/ibid/store/postgres"
)
