package store

import (
	"context"
	"database/sql"
	"time"

	"marketplace/internal/listings"
	"marketplace/internal/shipping"
)

// The shipping area (shipping.Tx): sellers' shipping preferences (the
// listings, users and lock it reads too are listings.go's and accounts.go's).
var _ shipping.Tx = (*Tx)(nil)

// ShippingPrefs reads a seller's saved shipping preferences (NOT_FOUND when
// the seller never saved any).
func (tx *Tx) ShippingPrefs(ctx context.Context, userID string) (*shipping.Prefs, error) {
	p := shipping.Prefs{UserID: userID}
	var weight sql.NullInt64
	var l, w, h sql.NullFloat64
	var updated sql.NullTime
	err := tx.queryRow(ctx, `SELECT auto_label, preferred_carrier, preferred_service, local_pickup, handling_days,
		package_weight_oz, package_l, package_w, package_h, updated_at FROM shipping_prefs WHERE user_id = ?`, userID).
		Scan(&p.AutoLabel, &p.PreferredCarrier, &p.PreferredService, &p.LocalPickup, &p.HandlingDays,
			&weight, &l, &w, &h, &updated)
	if err != nil {
		return nil, notFound(err, "shipping preferences")
	}
	if weight.Valid {
		p.Package = &shipping.Package{WeightOz: int(weight.Int64),
			Dimensions: listings.Dimensions{L: l.Float64, W: w.Float64, H: h.Float64}}
	}
	if updated.Valid {
		t := updated.Time.UTC()
		p.UpdatedAt = &t
	}
	return &p, nil
}

// PutShippingPrefs saves a seller's shipping preferences, all of them.
func (tx *Tx) PutShippingPrefs(ctx context.Context, p *shipping.Prefs) error {
	var weight, l, w, h any
	var updated time.Time
	if p.UpdatedAt != nil {
		updated = *p.UpdatedAt
	}
	if p.Package != nil {
		weight, l, w, h = p.Package.WeightOz, p.Package.Dimensions.L, p.Package.Dimensions.W, p.Package.Dimensions.H
	}
	_, err := tx.exec(ctx, `INSERT INTO shipping_prefs (user_id, auto_label, preferred_carrier, preferred_service,
		local_pickup, handling_days, package_weight_oz, package_l, package_w, package_h, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (user_id) DO UPDATE SET auto_label = excluded.auto_label,
		preferred_carrier = excluded.preferred_carrier, preferred_service = excluded.preferred_service,
		local_pickup = excluded.local_pickup, handling_days = excluded.handling_days,
		package_weight_oz = excluded.package_weight_oz, package_l = excluded.package_l, package_w = excluded.package_w,
		package_h = excluded.package_h, updated_at = excluded.updated_at`,
		p.UserID, p.AutoLabel, p.PreferredCarrier, p.PreferredService, p.LocalPickup, p.HandlingDays,
		weight, l, w, h, updated)
	return wrap(err)
}
