package store

import (
	"context"
	"database/sql"
	"encoding/json"

	"marketplace/internal/market"
	"marketplace/internal/webhooks"
)

// Webhooks is db as webhooks.Store.
func Webhooks(db *DB) Area[webhooks.Tx] {
	return area(db, func(tx *Tx) webhooks.Tx { return tx })
}

var _ webhooks.Store = Area[webhooks.Tx]{}

const endpointColumns = `id, user_id, kind, url, secret, events, casing, enabled, disabled_reason, created_at, updated_at`

func scanEndpoint(row scanner) (*webhooks.Endpoint, error) {
	var e webhooks.Endpoint
	var evts, casing string
	if err := row.Scan(&e.ID, &e.UserID, &e.Kind, &e.URL, &e.Secret, &evts, &casing, &e.Enabled, &e.DisabledReason,
		&e.CreatedAt, &e.UpdatedAt); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(evts), &e.Events); err != nil {
		return nil, market.Internal(err)
	}
	e.Snake = casing == "snake"
	e.CreatedAt, e.UpdatedAt = e.CreatedAt.UTC(), e.UpdatedAt.UTC()
	return &e, nil
}

func casingOf(e *webhooks.Endpoint) string {
	if e.Snake {
		return "snake"
	}
	return "camel"
}

// WebhookEndpoints lists a user's endpoints, oldest first.
func (tx *Tx) WebhookEndpoints(ctx context.Context, userID string) ([]webhooks.Endpoint, error) {
	return queryAll(ctx, tx, scanEndpoint, `SELECT `+endpointColumns+` FROM webhook_endpoints
		WHERE user_id = ? ORDER BY created_at, id`, userID)
}

// WebhookEndpoint reads one endpoint.
func (tx *Tx) WebhookEndpoint(ctx context.Context, id string) (*webhooks.Endpoint, error) {
	e, err := scanEndpoint(tx.queryRow(ctx, `SELECT `+endpointColumns+` FROM webhook_endpoints WHERE id = ?`+tx.lockInTx(), id))
	if err != nil {
		return nil, notFound(err, "webhook")
	}
	return e, nil
}

// InsertWebhookEndpoint adds an endpoint.
func (tx *Tx) InsertWebhookEndpoint(ctx context.Context, e *webhooks.Endpoint) error {
	evts, err := json.Marshal(e.Events)
	if err != nil {
		return market.Internal(err)
	}
	_, err = tx.exec(ctx, `INSERT INTO webhook_endpoints (`+endpointColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		e.ID, e.UserID, e.Kind, e.URL, e.Secret, string(evts), casingOf(e), e.Enabled, e.DisabledReason, e.CreatedAt, e.UpdatedAt)
	return wrap(err)
}

// UpdateWebhookEndpoint writes an endpoint's changeable fields.
func (tx *Tx) UpdateWebhookEndpoint(ctx context.Context, e *webhooks.Endpoint) error {
	evts, err := json.Marshal(e.Events)
	if err != nil {
		return market.Internal(err)
	}
	_, err = tx.exec(ctx, `UPDATE webhook_endpoints SET url = ?, secret = ?, events = ?, enabled = ?, disabled_reason = ?,
		updated_at = ? WHERE id = ?`, e.URL, e.Secret, string(evts), e.Enabled, e.DisabledReason, e.UpdatedAt, e.ID)
	return wrap(err)
}

// DeleteWebhookEndpoint removes an endpoint and its deliveries.
func (tx *Tx) DeleteWebhookEndpoint(ctx context.Context, id string) error {
	if _, err := tx.exec(ctx, `DELETE FROM webhook_deliveries WHERE endpoint_id = ?`, id); err != nil {
		return wrap(err)
	}
	_, err := tx.exec(ctx, `DELETE FROM webhook_endpoints WHERE id = ?`, id)
	return wrap(err)
}

const deliveryColumns = `id, endpoint_id, event_id, event_type, status, attempts, last_status_code, last_error,
	next_attempt_at, history, created_at, delivered_at`

func scanDelivery(row scanner) (*webhooks.Delivery, error) {
	var d webhooks.Delivery
	var code sql.NullInt64
	var next, delivered sql.NullTime
	var history string
	if err := row.Scan(&d.ID, &d.EndpointID, &d.EventID, &d.EventType, &d.Status, &d.Attempts, &code, &d.LastError,
		&next, &history, &d.CreatedAt, &delivered); err != nil {
		return nil, err
	}
	if code.Valid {
		c := int(code.Int64)
		d.LastStatusCode = &c
	}
	d.NextAttemptAt, d.DeliveredAt = nullTime(next), nullTime(delivered)
	d.CreatedAt = d.CreatedAt.UTC()
	if err := json.Unmarshal([]byte(history), &d.History); err != nil {
		return nil, market.Internal(err)
	}
	if d.History == nil {
		d.History = []webhooks.Attempt{}
	}
	return &d, nil
}

// InsertWebhookDelivery adds a delivery.
func (tx *Tx) InsertWebhookDelivery(ctx context.Context, d *webhooks.Delivery) error {
	history, err := json.Marshal(d.History)
	if err != nil {
		return market.Internal(err)
	}
	if d.History == nil {
		history = []byte("[]")
	}
	_, err = tx.exec(ctx, `INSERT INTO webhook_deliveries (`+deliveryColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		d.ID, d.EndpointID, d.EventID, d.EventType, d.Status, d.Attempts, intArg(d.LastStatusCode), d.LastError,
		d.NextAttemptAt, string(history), d.CreatedAt, d.DeliveredAt)
	return wrap(err)
}

func intArg(p *int) any {
	if p == nil {
		return nil
	}
	return int64(*p)
}

// WebhookDelivery reads one delivery, locked inside a transaction.
func (tx *Tx) WebhookDelivery(ctx context.Context, id string) (*webhooks.Delivery, error) {
	d, err := scanDelivery(tx.queryRow(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries WHERE id = ?`+tx.lockInTx(), id))
	if err != nil {
		return nil, notFound(err, "delivery")
	}
	return d, nil
}

// UpdateWebhookDelivery writes a delivery's progress.
func (tx *Tx) UpdateWebhookDelivery(ctx context.Context, d *webhooks.Delivery) error {
	history, err := json.Marshal(d.History)
	if err != nil {
		return market.Internal(err)
	}
	_, err = tx.exec(ctx, `UPDATE webhook_deliveries SET status = ?, attempts = ?, last_status_code = ?, last_error = ?,
		next_attempt_at = ?, history = ?, delivered_at = ? WHERE id = ?`,
		d.Status, d.Attempts, intArg(d.LastStatusCode), d.LastError, d.NextAttemptAt, string(history), d.DeliveredAt, d.ID)
	return wrap(err)
}

// WebhookDeliveries lists an endpoint's deliveries, newest first.
func (tx *Tx) WebhookDeliveries(ctx context.Context, endpointID string, limit int) ([]webhooks.Delivery, error) {
	return queryAll(ctx, tx, scanDelivery, `SELECT `+deliveryColumns+` FROM webhook_deliveries
		WHERE endpoint_id = ? ORDER BY created_at DESC, id DESC LIMIT ?`, endpointID, limit)
}
