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

// SeedCategories inserts the built-in categories that are not there yet
// and brings the built-in rows' keywords, price priors and package
// defaults up to this build's seed. Names, parents and switches are left
// as they are, so what an admin changed survives restarts. When a row
// changed the config version moves, so running replicas rebuild their
// trees.
func (tx *Tx) SeedCategories(ctx context.Context, cats []listings.Category, at time.Time) error {
	var changed int64
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
		res, err := tx.exec(ctx, `INSERT INTO categories (id, slug, name, path, parent_id, default_weight_oz, dim_l, dim_w, dim_h,
			keywords, prior_price, active, created_at) VALUES `+values+` ON CONFLICT (id) DO UPDATE SET
			default_weight_oz = excluded.default_weight_oz, dim_l = excluded.dim_l, dim_w = excluded.dim_w,
			dim_h = excluded.dim_h, keywords = excluded.keywords, prior_price = excluded.prior_price
			WHERE categories.default_weight_oz <> excluded.default_weight_oz OR categories.dim_l <> excluded.dim_l
			OR categories.dim_w <> excluded.dim_w OR categories.dim_h <> excluded.dim_h
			OR categories.keywords <> excluded.keywords OR categories.prior_price <> excluded.prior_price`, args...)
		if err != nil {
			return wrap(err)
		}
		k, err := res.RowsAffected()
		if err != nil {
			return wrap(err)
		}
		changed += k
		cats = cats[n:]
	}
	if changed > 0 {
		return tx.BumpConfigVersion(ctx)
	}
	return nil
}

// Categories lists every category, inactive ones included, in path order
// (parents before their children).
func (tx *Tx) Categories(ctx context.Context) ([]listings.Category, error) {
	return queryAll(ctx, tx, scanCategory, `SELECT id, slug, name, path, parent_id, default_weight_oz, dim_l, dim_w, dim_h, keywords,
		prior_price, active, created_at FROM categories ORDER BY path, id`)
}

// InsertCategory adds an admin's category.
func (tx *Tx) InsertCategory(ctx context.Context, c *listings.Category) error {
	kw, err := json.Marshal(c.Keywords)
	if err != nil {
		return market.Internal(err)
	}
	if kw == nil || string(kw) == "null" {
		kw = []byte("[]")
	}
	_, err = tx.exec(ctx, `INSERT INTO categories (id, slug, name, path, parent_id, default_weight_oz, dim_l, dim_w, dim_h,
		keywords, prior_price, active, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.ID, c.Slug, c.Name, c.Path, nullString(c.ParentID), c.DefaultWeightOz, c.DefaultDims.L, c.DefaultDims.W,
		c.DefaultDims.H, string(kw), c.PriorPrice, c.Active, c.CreatedAt)
	if isUnique(err, "slug") || isUnique(err, "categories.id") || isUnique(err, "categories_pkey") {
		return market.Invalid(market.FieldError{Field: "slug", Message: "is already used by another category"})
	}
	return wrap(err)
}

// UpdateCategory stores a category's name, path and switch.
func (tx *Tx) UpdateCategory(ctx context.Context, c *listings.Category) error {
	res, err := tx.exec(ctx, `UPDATE categories SET name = ?, path = ?, active = ? WHERE id = ?`, c.Name, c.Path, c.Active, c.ID)
	if err != nil {
		return wrap(err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return notFound(orNoRows(err), "category")
	}
	return nil
}

func orNoRows(err error) error {
	if err != nil {
		return err
	}
	return sql.ErrNoRows
}

func scanCategory(row scanner) (*listings.Category, error) {
	var c listings.Category
	var parent sql.NullString
	var kw string
	if err := row.Scan(&c.ID, &c.Slug, &c.Name, &c.Path, &parent, &c.DefaultWeightOz, &c.DefaultDims.L, &c.DefaultDims.W,
		&c.DefaultDims.H, &kw, &c.PriorPrice, &c.Active, &c.CreatedAt); err != nil {
		return nil, wrap(err)
	}
	c.ParentID, c.CreatedAt = parent.String, c.CreatedAt.UTC()
	if err := json.Unmarshal([]byte(kw), &c.Keywords); err != nil {
		return nil, market.Internal(err)
	}
	return &c, nil
}
