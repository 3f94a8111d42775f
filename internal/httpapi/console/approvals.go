package console

import (
	"net/http"

	"marketplace/internal/api"
	"marketplace/internal/market"
	"marketplace/internal/orders"
)

// approvalRow is a purchase waiting for (or decided by) the owner, with the
// order it would make and the key that asked.
type approvalRow struct {
	Approval orders.Approval
	Order    *api.Order
	Key      *api.AgentKey
}

type approvalsData struct {
	Pending, Decided []approvalRow
	Error            *market.Error
}

func (c *Console) approvalsPage(v *visit) error {
	return c.showApprovals(v, http.StatusOK, nil)
}

func (c *Console) showApprovals(v *visit, status int, refusal *market.Error) error {
	ctx := v.r.Context()
	views, _, err := c.Ops.Orders.Approvals(ctx, v.caller().Actor, "", 50, 0)
	if err != nil {
		return err
	}
	keys, err := c.Ops.KeyOps().List(ctx, v.caller())
	if err != nil {
		return err
	}
	byID := map[string]*api.AgentKey{}
	for i := range keys {
		byID[keys[i].ID] = &keys[i]
	}
	d := approvalsData{Error: refusal}
	for _, av := range views {
		row := approvalRow{Approval: av.Approval, Key: byID[av.Approval.KeyID]}
		if av.Order != nil {
			row.Order = api.OrderOf(av.Order, v.caller().Actor)
		}
		if av.Approval.Status == orders.ApprovalPending {
			d.Pending = append(d.Pending, row)
		} else {
			d.Decided = append(d.Decided, row)
		}
	}
	return c.render(v, status, "approvals", d)
}

// decide approves (the purchase is charged, every check run again) or
// rejects one of the owner's approvals; another owner's is NOT_FOUND.
func (c *Console) decide(v *visit) error {
	ops, id, ctx := c.Ops.OrderOps(), v.r.PathValue("id"), v.r.Context()
	var err error
	switch v.r.PathValue("action") {
	case "approve":
		_, err = ops.Approve(ctx, v.caller(), id)
	case "reject":
		_, err = ops.Reject(ctx, v.caller(), id, v.r.PostForm.Get("reason"))
	default:
		return market.Errorf(market.CodeNotFound, "no such page")
	}
	return c.answer(v, err, "/approvals", c.showApprovals)
}
