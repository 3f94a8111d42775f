package storetest

import (
	"context"
	"fmt"
	"sync"

	"marketplace/internal/store"
)

// template is one migrated store per engine and prep, made at first use and
// kept for the life of the test process.
type template struct {
	once sync.Once
	name string // SQLite: the file; PostgreSQL: the database
	err  error
}

var (
	templatesMu sync.Mutex
	templates   = map[string]*template{}
)

// templateFor returns the template of engine and prep, making it with make
// the first time. make gets a migrate function to run on the new store.
func templateFor(engine string, prep *Prep, make func(migrate func(*store.DB) error) (string, error)) (string, error) {
	key := engine
	if prep != nil {
		key += "/" + prep.Name
	}
	templatesMu.Lock()
	tp := templates[key]
	if tp == nil {
		tp = &template{}
		templates[key] = tp
	}
	templatesMu.Unlock()
	tp.once.Do(func() {
		tp.name, tp.err = make(func(db *store.DB) error {
			ctx := context.Background()
			if err := db.Migrate(ctx); err != nil {
				return fmt.Errorf("migrate template: %w", err)
			}
			if prep != nil {
				if err := prep.Run(ctx, db); err != nil {
					return fmt.Errorf("prepare template (%s): %w", prep.Name, err)
				}
			}
			return nil
		})
	})
	return tp.name, tp.err
}
