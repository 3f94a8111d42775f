// Package events is the domain event log: an append-only record of what
// happened, written in the same transaction as the change it records. It
// feeds order timelines and, later, webhooks.
package events

import (
	"context"
	"time"

	"marketplace/internal/market"
)

// Event is one thing that happened to one entity.
type Event struct {
	ID         string
	Type       string // e.g. "agent_key.created"
	ActorType  market.ActorType
	ActorID    string
	EntityType string
	EntityID   string
	Data       map[string]any
	CreatedAt  time.Time
}

// Tx is what the event log needs from a transaction.
type Tx interface {
	AppendEvent(ctx context.Context, e *Event) error
}

// Record appends an event of type typ about entity, by actor, at now.
func Record(ctx context.Context, tx Tx, now time.Time, actor market.Actor, typ, entityType, entityID string, data map[string]any) error {
	if data == nil {
		data = map[string]any{}
	}
	actorType := actor.Type
	if actorType == "" {
		actorType = market.ActorSystem
	}
	return tx.AppendEvent(ctx, &Event{
		ID:         market.NewID(),
		Type:       typ,
		ActorType:  actorType,
		ActorID:    actor.ID(),
		EntityType: entityType,
		EntityID:   entityID,
		Data:       data,
		CreatedAt:  now,
	})
}
