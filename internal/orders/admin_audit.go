package orders

import "context"

// orderAudit is what the audit entry of a change to an order records of it
// (CONTRACT.md section 14: the values before and after).
func orderAudit(o *Order) map[string]any {
	return map[string]any{"status": string(o.Status), "payoutStatus": string(o.PayoutStatus),
		"payoutDueAt": o.PayoutDueAt, "amountRefunded": o.AmountRefunded}
}

// noteOrderChange notes, for the request's audit entry, an order as it was
// before a change and as the change left it.
func (s *Service) noteOrderChange(ctx context.Context, before, after *Order) {
	s.noteChange(ctx, orderAudit(before), orderAudit(after))
}

// noteChange notes a change's values before and after for the request's
// audit entry (Options.Changes).
func (s *Service) noteChange(ctx context.Context, before, after map[string]any) {
	if s.opts.Changes != nil {
		s.opts.Changes.NoteChange(ctx, before, after, nil)
	}
}

// approvalAudit is what the audit entry of a decision records of a purchase
// approval: its status and its order's.
func approvalAudit(status string, o *Order) map[string]any {
	return map[string]any{"status": status, "orderStatus": string(o.Status)}
}

// disputeAudit is what the audit entry of a resolution records of a dispute
// and its order.
func disputeAudit(d *Dispute, o *Order) map[string]any {
	return map[string]any{"status": string(d.Status), "resolution": string(d.Resolution),
		"resolutionAmount": d.ResolutionAmount, "orderStatus": string(o.Status), "amountRefunded": o.AmountRefunded}
}
