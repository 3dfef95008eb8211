package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"regexp"
	"strings"
	"time"

	"github.com/ibid-dev/ibid/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// writerWait is how long a writer waits for another writer of the same
// library before it gives up with store.ErrBusy.
const writerWait = 60 * time.Second

// lockCollection takes the transaction-scoped advisory lock of a collection:
// writers of one library (Update, Drop) serialise on it, in this process and
// between processes; one that waits longer than wait gets an error wrapping
// store.ErrBusy.
func lockCollection(ctx context.Context, tx pgx.Tx, id int64, wait time.Duration) error {
	if _, err := tx.Exec(ctx, fmt.Sprintf(`SET LOCAL lock_timeout = %d`, max(wait.Milliseconds(), 1))); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1::int4, $2::int4)`, int32(migrationLock), int32(id)); err != nil {
		return classify(err)
	}
	return nil
}

// ErrConnection wraps the errors of a lost or refused connection.
var ErrConnection = errors.New("lost the connection to PostgreSQL")

// classify turns the database's errors into the contract's: a lock that
// could not be had into store.ErrBusy, a library's partition that is gone
// (another process dropped the library) into store.ErrNoLibrary, a lost
// connection into
// ErrConnection with what to do. Others pass through.
func classify(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, store.ErrBusy) || errors.Is(err, ErrConnection) {
		return err
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "55P03", "40P01", "40001": // lock_not_available, deadlock_detected, serialization_failure
			return fmt.Errorf("%w (%s)", store.ErrBusy, pe.Message)
		case "42P01": // undefined_table: the library's partition went with a drop
			return fmt.Errorf("%w: it was dropped (%s)", store.ErrNoLibrary, pe.Message)
		}
	}
	if isConnError(err) {
		return fmt.Errorf("%w (%v); check that the server is running and reachable, then try again: "+
			"ibid reconnects on the next call", ErrConnection, err)
	}
	return err
}

// connectError explains a failure to connect.
func connectError(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "3D000" { // invalid_catalog_name
		return fmt.Errorf("couldn't connect to PostgreSQL: %s; create the database first (createdb) or fix its name in the location", pe.Message)
	}
	if errors.As(err, &pe) && (pe.Code == "28P01" || pe.Code == "28000") {
		return fmt.Errorf("couldn't connect to PostgreSQL: %s; check the user and password in the location (or ~/.pgpass)", pe.Message)
	}
	return fmt.Errorf("%w: couldn't connect (%s); check that the server is running and the location's host and port are right",
		ErrConnection, redactString(err.Error()))
}

// isConnError reports whether err means the connection is gone or was
// never made, rather than that a statement failed.
func isConnError(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return strings.HasPrefix(pe.Code, "08") || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
	}
	var ne net.Error
	var ce *pgconn.ConnectError
	return errors.As(err, &ne) || errors.As(err, &ce) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || strings.Contains(err.Error(), "conn closed") || pgconn.SafeToRetry(err)
}

var passwordRE = regexp.MustCompile(`(?i)(password=)\S+|(://[^:/@\s]*:)[^@\s]*@`)

// redactString hides passwords in a text that may quote a location.
func redactString(s string) string {
	return passwordRE.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasPrefix(strings.ToLower(m), "password=") {
			return "password=xxxxx"
		}
		i := strings.Index(m[3:], ":") + 3 // m is "://user:secret@"
		return m[:i+1] + "xxxxx@"
	})
}
