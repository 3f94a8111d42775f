// Package events is the domain event log: an append-only record of what
// happened, written in the same transaction as the change it records. It
// feeds order timelines and, for the public types of CONTRACT.md section
// 12, each recipient's event feed, webhooks and e-mail.
package events

import (
	"context"
	"slices"
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
	// Recipients are the users who receive a public event (their feed,
	// webhooks and e-mail); empty for internal types.
	Recipients []string
}

// Tx is what the event log needs from a transaction.
type Tx interface {
	AppendEvent(ctx context.Context, e *Event) error
}

// Record appends an event of type typ about entity, by actor, at now. A
// public type (Public) goes to the users in to as well; to is ignored for
// the log's internal types, so callers may pass the parties of an entity
// whatever the type.
func Record(ctx context.Context, tx Tx, now time.Time, actor market.Actor, typ, entityType, entityID string, data map[string]any, to ...string) error {
	if data == nil {
		data = map[string]any{}
	}
	actorType := actor.Type
	if actorType == "" {
		actorType = market.ActorSystem
	}
	e := &Event{
		ID:         market.NewID(),
		Type:       typ,
		ActorType:  actorType,
		ActorID:    actor.ID(),
		EntityType: entityType,
		EntityID:   entityID,
		Data:       data,
		CreatedAt:  now,
	}
	if Public(typ) {
		e.Recipients = distinct(to)
	}
	return tx.AppendEvent(ctx, e)
}

// distinct drops empty and repeated ids, keeping the first order.
func distinct(ids []string) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if id != "" && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}
