package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"time"

	"marketplace/internal/listings"
	"marketplace/internal/market"
)

// The listings area (listings.Tx): the category taxonomy. (Search reads a
// category's subtree: CategorySubtree, in search.go.)
var _ listings.Tx = (*Tx)(nil)

// seedBatch is how many categories one INSERT carries: start-up seeds on
// every run, so it takes a handful of statements, not one per category.
const seedBatch = 50

// SeedCategories inserts the categories that are not there yet. Existing
// rows are left as they are, so what an admin changed survives restarts.
func (tx *Tx) SeedCategories(ctx context.Context, cats []listings.Category, at time.Time) error {
	for len(cats) > 0 {
		n := min(len(cats), seedBatch)
		var args []any
		for _, c := range cats[:n] {
			kw, err := json.Marshal(c.Keywords)
			if err != nil {
				return market.Internal(err)
			}
			args = append(args, c.ID, c.Slug, c.Name, c.Path, nullString(c.ParentID), c.DefaultWeightOz, c.DefaultDims.L,
				c.DefaultDims.W, c.DefaultDims.H, string(kw), c.PriorPrice, at)
		}
		row := "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, TRUE, ?)"
		values := strings.TrimSuffix(strings.Repeat(row+", ", n), ", ")
		if _, err := tx.exec(ctx, `INSERT INTO categories (id, slug, name, path, parent_id, default_weight_oz, dim_l, dim_w, dim_h,
			keywords, prior_price, active, created_at) VALUES `+values+` ON CONFLICT DO NOTHING`, args...); err != nil {
			return wrap(err)
		}
		cats = cats[n:]
	}
	return nil
}

// Categories lists the active categories in path order (parents before
// their children).
func (tx *Tx) Categories(ctx context.Context) ([]listings.Category, error) {
	return queryAll(ctx, tx, scanCategory, `SELECT id, slug, name, path, parent_id, default_weight_oz, dim_l, dim_w, dim_h, keywords, prior_price
		FROM categories WHERE active ORDER BY path, id`)
}

func scanCategory(row scanner) (*listings.Category, error) {
	var c listings.Category
	var parent sql.NullString
	var kw string
	if err := row.Scan(&c.ID, &c.Slug, &c.Name, &c.Path, &parent, &c.DefaultWeightOz, &c.DefaultDims.L, &c.DefaultDims.W,
		&c.DefaultDims.H, &kw, &c.PriorPrice); err != nil {
		return nil, wrap(err)
	}
	c.ParentID = parent.String
	if err := json.Unmarshal([]byte(kw), &c.Keywords); err != nil {
		return nil, market.Internal(err)
	}
	return &c, nil
}
