package store

import (
	"context"
	"encoding/json"

	"marketplace/internal/events"
	"marketplace/internal/market"
)

// The event log (events.Tx): appended by every area, read back per entity
// (EventsFor, which orders.Tx names for an order's timeline).
var _ events.Tx = (*Tx)(nil)

// AppendEvent writes an event; the log is append-only, so there is no update.
func (tx *Tx) AppendEvent(ctx context.Context, e *events.Event) error {
	data, err := json.Marshal(e.Data)
	if err != nil {
		return market.Internal(err)
	}
	_, err = tx.exec(ctx, `INSERT INTO events (id, type, actor_type, actor_id, entity_type, entity_id, data, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		e.ID, e.Type, string(e.ActorType), e.ActorID, e.EntityType, e.EntityID, string(data), e.CreatedAt)
	return wrap(err)
}

// EventsFor lists the events of one entity, oldest first.
func (tx *Tx) EventsFor(ctx context.Context, entityType, entityID string) ([]events.Event, error) {
	return queryAll(ctx, tx, scanEvent, `SELECT id, type, actor_type, actor_id, entity_type, entity_id, data, created_at
		FROM events WHERE entity_type = ? AND entity_id = ? ORDER BY created_at, id`, entityType, entityID)
}

func scanEvent(row scanner) (*events.Event, error) {
	var e events.Event
	var actorType, data string
	if err := row.Scan(&e.ID, &e.Type, &actorType, &e.ActorID, &e.EntityType, &e.EntityID, &data, &e.CreatedAt); err != nil {
		return nil, wrap(err)
	}
	e.ActorType = market.ActorType(actorType)
	if err := json.Unmarshal([]byte(data), &e.Data); err != nil {
		return nil, market.Internal(err)
	}
	e.CreatedAt = e.CreatedAt.UTC()
	return &e, nil
}
