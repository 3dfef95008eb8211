package postgres

import (
	"context"
	"fmt"

	"github.com/ibid-dev/ibid/store"
	"github.com/jackc/pgx/v5"
)

// A library's settings (store.Settings) are rows of rag_settings, keyed
// by the collection and the name (schema version 3); dropping the library
// drops them with its rag_collections row.

var _ store.Settings = (*Store)(nil)

// Settings implements store.Settings.
func (s *Store) Settings(ctx context.Context) (map[string]string, error) {
	m := map[string]string{}
	err := s.read(ctx, "read settings", func(ctx context.Context) error {
		rows, err := s.pool.Query(ctx, `SELECT key, value FROM rag_settings WHERE collection_id = $1`, s.coll)
		if err != nil {
			return err
		}
		clear(m)
		var k, v string
		_, err = pgx.ForEachRow(rows, []any{&k, &v}, func() error {
			m[k] = v
			return nil
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// SetSettings implements store.Settings: one transaction.
func (s *Store) SetSettings(ctx context.Context, put map[string]string, del []string) error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	if s.readOnly {
		return store.ErrReadOnly
	}
	if err := store.CheckSettings(put, del); err != nil {
		return err
	}
	gone := make(map[string]bool, len(del))
	for _, k := range del {
		gone[k] = true
	}
	var keys, values []string
	for k, v := range put {
		if !gone[k] {
			keys, values = append(keys, k), append(values, v)
		}
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if len(del) > 0 {
			if _, err := tx.Exec(ctx, `DELETE FROM rag_settings WHERE collection_id = $1 AND key = ANY($2)`, s.coll, del); err != nil {
				return err
			}
		}
		if len(keys) > 0 {
			if _, err := tx.Exec(ctx, `INSERT INTO rag_settings (collection_id, key, value)
				SELECT $1, k, v FROM unnest($2::text[], $3::text[]) AS t(k, v)
				ON CONFLICT (collection_id, key) DO UPDATE SET value = excluded.value`, s.coll, keys, values); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("couldn't store the settings of library %q (nothing was changed): %w", s.name, classify(err))
	}
	return nil
}
