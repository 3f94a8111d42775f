package app

import (
	"context"

	"marketplace/internal/audit"
	"marketplace/internal/events"
	"marketplace/internal/httpapi"
	"marketplace/internal/store"
)

// auditMoneyMoves writes the audit entry of a money move the service made
// itself (audit.MoneyMove) in the transaction of the event that
// records the move: every such move records an event, so this one sink
// covers payout release, reconciliation, processor webhooks, automatic
// labels and the sandbox clock's jobs alike. A move inside a request also
// has the request's own entry (the router's); the two share the request id.
func auditMoneyMoves(ctx context.Context, tx *store.Tx, e *events.Event) error {
	entry := audit.MoneyMove(e, httpapi.RequestID(ctx))
	if entry == nil {
		return nil
	}
	return tx.AppendAudit(ctx, entry)
}
