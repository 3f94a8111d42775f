package console

import (
	"net/http"
	"time"

	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/orders"
)

// The admin's disputes: every dispute as GET /admin/disputes lists them,
// one with its order, the seller's money and the timeline as GET
// /admin/disputes/{id} shows it, and its resolution as POST
// /admin/disputes/{id}/resolve makes it (the money moves as it says).

type adminDisputesData struct {
	Disputes []api.Dispute
	Statuses []option
	Page     pager
}

func (c *Console) adminDisputesPage(v *visit) error {
	limit, offset, err := httpapi.Page(v.r)
	if err != nil {
		return err
	}
	status := v.r.URL.Query().Get("status")
	ds, total, err := c.Ops.DisputeOps().All(v.r.Context(), v.caller(), status, limit, offset)
	if err != nil {
		return err
	}
	st := make([]string, len(orders.DisputeStatuses))
	for i, s := range orders.DisputeStatuses {
		st[i] = string(s)
	}
	return c.render(v, http.StatusOK, "admin_disputes", adminDisputesData{Disputes: ds, Statuses: choices(status, st...),
		Page: adminPage(v.r, len(ds), total, limit, offset, false)})
}

// adminDisputeData is one dispute as the admin decides it.
type adminDisputeData struct {
	Dispute *api.Dispute
	Order   *api.Order
	Payout  struct {
		Status string
		Amount int64
		DueAt  *time.Time
	}
	Events      []api.TimelineEvent
	Resolutions []orders.Resolution
	Error       *market.Error
}

func (c *Console) adminDisputePage(v *visit) error {
	return c.showDispute(v, http.StatusOK, nil)
}

func (c *Console) showDispute(v *visit, status int, refusal *market.Error) error {
	actor := v.caller().Actor
	det, err := c.Ops.Orders.AdminDispute(v.r.Context(), actor, v.r.PathValue("id"))
	if err != nil {
		return err
	}
	o := det.Order
	d := adminDisputeData{Dispute: api.DisputeOf(det.Dispute, c.Ops.Photos), Order: api.OrderOf(o, actor),
		Events: api.TimelineOf(det.Events), Resolutions: orders.Resolutions, Error: refusal}
	d.Payout.Status, d.Payout.Amount, d.Payout.DueAt = string(o.PayoutStatus), o.PayoutAmount, o.PayoutDueAt
	return c.render(v, status, "admin_dispute", d)
}

// adminResolveDispute settles a dispute; a partial refund's amount is in
// dollars and cents. A refusal shows on the dispute's page.
func (c *Console) adminResolveDispute(v *visit) error {
	f := v.r.PostForm
	var check market.Check
	amount := cents(&check, f, "amount", "Amount")
	id := httpapi.PathEntity(v.r, "dispute")
	err := check.Err()
	if err == nil {
		_, err = c.Ops.Orders.ResolveDispute(v.r.Context(), v.caller().Actor, id, orders.DisputeDecision{
			Resolution: f.Get("resolution"), Amount: amount, Note: f.Get("note")})
	}
	return c.answer(v, err, "/admin/disputes/"+id, c.showDispute)
}
