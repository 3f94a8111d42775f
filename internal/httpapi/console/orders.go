package console

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/orders"
	"marketplace/internal/shipping"
)

// orderRoutes adds the pages of orders as buyer and seller, shipping, refunds, disputes, payouts.
func (c *Console) orderRoutes(rt *httpapi.Router) {
	rt.Handle("GET", "/orders", httpapi.Public, c.member(c.ordersPage))
	rt.Handle("GET", "/orders/{id}", httpapi.Public, c.member(c.orderPage))
	rt.Handle("GET", "/orders/{id}/label", httpapi.Public, c.member(c.orderLabel))
	rt.Handle("POST", "/orders/{id}/{action}", httpapi.Public, c.member(c.orderAction))
	rt.Handle("GET", "/payouts", httpapi.Public, c.member(c.payoutsPage))
	rt.Handle("POST", "/payouts/connect", httpapi.Public, c.member(c.payoutConnect))
}

// orderRow is one order in a list, with the other party's name.
type orderRow struct {
	Order api.Order
	Other string
}

// ordersData is a page of the visitor's orders; Role and Status are the
// filters.
type ordersData struct {
	Role, Status string
	Statuses     []option
	Rows         []orderRow
	Page         pager
}

// orderStatuses are the statuses to filter by, in words, after "Any".
func orderStatuses(current string) []option {
	var opts []option
	for _, s := range orders.AllStatuses {
		opts = append(opts, option{Value: string(s), Label: strings.ReplaceAll(string(s), "_", " ")})
	}
	return append([]option{{Value: "", Label: "Any"}}, choose(opts, current)...)
}

// ordersPage lists the visitor's orders as GET /agent/orders does: role
// buyer, seller or both, a status, limit and offset from the query.
func (c *Console) ordersPage(v *visit) error {
	q := v.r.URL.Query()
	d := ordersData{Role: q.Get("role"), Status: q.Get("status")}
	d.Statuses = orderStatuses(d.Status)
	limit, offset, err := httpapi.Page(v.r)
	if err != nil {
		return err
	}
	os, total, err := c.Ops.OrderOps().List(v.r.Context(), v.caller(), d.Role, d.Status, limit, offset)
	if err != nil {
		return err
	}
	names := c.displayNames(v, "a former member")
	for _, o := range os {
		other := o.BuyerID
		if o.Role == "buyer" {
			other = o.SellerID
		}
		d.Rows = append(d.Rows, orderRow{Order: o, Other: names.of(other)})
	}
	d.Page = pageOf(len(os), total, limit, offset, pageLinks("/orders", url.Values{"role": {d.Role}, "status": {d.Status}}, limit))
	d.Page.PrevText, d.Page.NextText = "Newer", "Older"
	return c.render(v, http.StatusOK, "orders", d)
}

// orderData is one order's page: the order as the visitor sees it, its
// shipment, timeline, refunds and dispute, and what the forms offer.
type orderData struct {
	Order         *api.Order
	Buyer, Seller string
	Shipment      *api.Shipment
	Timeline      []timelineRow
	Refunds       []api.Refund
	OpenRefund    *api.Refund // the buyer's request waiting for the seller
	Dispute       *api.Dispute
	Label         bool // the order shipped on a label the platform bought
	Error         *market.Error
}

// afterSale are the statuses in which the buyer is offered a refund
// request and a dispute. They only choose which forms a page shows: the
// operation behind each form decides, and its refusal is shown as the API's.
var afterSale = []string{"paid", "pickup_ready", "shipped", "delivered", "completed"}

// Carriers the forms offer: a label's (the label engine's) and any the
// seller may ship with by hand.
var (
	labelCarriers  = []string{"usps", "ups", "fedex"}
	manualCarriers = []string{"usps", "ups", "fedex", "dhl"}
)

// The visitor's side of the order, and what the forms offer.
func (d orderData) Buying() bool                { return d.Order.Role == "buyer" }
func (d orderData) Selling() bool               { return d.Order.Role == "seller" }
func (d orderData) Shipping() bool              { return d.Order.FulfillmentType == string(orders.FulfillShipping) }
func (d orderData) Status(s ...string) bool     { return slices.Contains(s, d.Order.Status) }
func (d orderData) CanRefund() bool             { return d.OpenRefund == nil && d.Status(afterSale...) }
func (d orderData) CanDispute() bool            { return d.Status(afterSale...) }
func (d orderData) LabelCarriers() []string     { return labelCarriers }
func (d orderData) ManualCarriers() []string    { return manualCarriers }
func (d orderData) DisputeReasons() []string    { return orders.DisputeReasons }
func (d orderData) CarrierName(c string) string { return carrierName(c) }

// Actions is whether the page offers the visitor any form.
func (d orderData) Actions() bool {
	switch {
	case d.Selling():
		return d.Status("paid", "pickup_ready") || d.OpenRefund != nil || d.CanRespond()
	case d.Buying():
		return d.Status("shipped", "pickup_ready") || d.CanRefund() || d.CanDispute()
	}
	return false
}

// CanRespond is whether the seller may still answer the dispute.
func (d orderData) CanRespond() bool {
	return d.Dispute != nil && d.Dispute.Status == string(orders.DisputeOpen)
}

// timelineRow is an entry of the order's timeline, in words.
type timelineRow struct {
	At     time.Time
	What   string
	Detail string
}

func (c *Console) orderPage(v *visit) error {
	return c.showOrder(v, http.StatusOK, nil)
}

// order reads the order for v as GET /orders/{id} does; for someone who is
// neither its buyer nor its seller it does not exist (CONTRACT.md section
// 20: another user's order page is 404), where the API says FORBIDDEN.
func (c *Console) order(v *visit) (*api.Order, error) {
	o, err := c.Ops.OrderOps().Get(v.r.Context(), v.caller(), v.r.PathValue("id"))
	if market.CodeOf(err) == market.CodeForbidden {
		return nil, market.NotFound("order")
	}
	return o, err
}

// showOrder renders the order page at status, with a refusal if any.
func (c *Console) showOrder(v *visit, status int, refusal *market.Error) error {
	ctx, ops, caller := v.r.Context(), c.Ops.OrderOps(), v.caller()
	o, err := c.order(v)
	if err != nil {
		return err
	}
	d := orderData{Order: o, Error: refusal}
	names := c.displayNames(v, "a former member")
	d.Buyer, d.Seller = names.of(o.BuyerID), names.of(o.SellerID)
	if d.Shipment, err = ops.Shipment(ctx, caller, o.ID); err != nil {
		return err
	}
	evs, err := ops.Events(ctx, caller, o.ID)
	if err != nil {
		return err
	}
	var disputeID string
	for _, e := range evs {
		d.Timeline = append(d.Timeline, timelineOf(e))
		switch e.Type {
		case "order.disputed":
			disputeID, _ = e.Data["disputeId"].(string)
		case orders.EventLabelPurchased:
			tn, _ := e.Data["trackingNumber"].(string)
			d.Label = o.TrackingNumber != nil && tn == *o.TrackingNumber
		}
	}
	if d.Refunds, err = ops.Refunds(ctx, caller, o.ID); err != nil {
		return err
	}
	for i := range d.Refunds {
		if d.Refunds[i].Status == string(orders.RefundRequested) {
			d.OpenRefund = &d.Refunds[i]
		}
	}
	if disputeID != "" {
		if d.Dispute, err = c.Ops.DisputeOps().Get(ctx, caller, disputeID); err != nil {
			return err
		}
	}
	return c.render(v, status, "order", d)
}

// orderAction runs one form of the order page through the operation its
// API route calls, then shows the order again; a refusal is shown on the
// order page at the API's status.
func (c *Console) orderAction(v *visit) error {
	o, err := c.order(v)
	if err != nil {
		return err
	}
	ctx, ops, caller, f := v.r.Context(), c.Ops.OrderOps(), v.caller(), v.r.PostForm
	switch v.r.PathValue("action") {
	case "label": // POST /orders/{id}/shipping/label
		_, err = ops.BuyLabel(ctx, caller, o.ID, orders.LabelRequest{Carrier: f.Get("carrier")})
	case "ship": // POST /orders/{id}/ship
		_, err = ops.Ship(ctx, caller, o.ID, orders.Shipment{Carrier: f.Get("carrier"), TrackingNumber: f.Get("trackingNumber")})
	case "cancel": // POST /orders/{id}/cancel
		_, err = ops.Cancel(ctx, caller, o.ID, f.Get("reason"))
	case "pickup-ready":
		_, err = ops.PickupReady(ctx, caller, o.ID)
	case "confirm-pickup":
		_, err = ops.ConfirmPickup(ctx, caller, o.ID)
	case "delivered": // POST /orders/{id}/delivered
		_, err = ops.ConfirmDelivery(ctx, caller, o.ID)
	case "refund": // POST /purchases/{id}/refund
		var check market.Check
		amount := cents(&check, f, "amount", "Amount")
		if err = check.Err(); err == nil {
			_, err = ops.RequestRefund(ctx, caller, o.ID, orders.RefundRequestInput{Reason: f.Get("reason"), Amount: amount,
				Message: f.Get("message")})
		}
	case "refund-answer": // POST /purchases/{id}/refund/seller
		var check market.Check
		amount := cents(&check, f, "amount", "Amount")
		if err = check.Err(); err == nil {
			_, _, err = ops.RespondRefund(ctx, caller, o.ID, orders.RefundAnswer{RefundID: f.Get("refundId"),
				Action: f.Get("decision"), Amount: amount, Message: f.Get("message")})
		}
	case "dispute": // POST /disputes
		_, err = c.Ops.DisputeOps().Open(ctx, caller, api.DisputeOpening{OrderID: o.ID, Reason: f.Get("reason"),
			Description: f.Get("description")})
	case "dispute-response": // POST /disputes/{id}/respond
		disputes := c.Ops.DisputeOps()
		var d *api.Dispute
		if d, err = disputes.Get(ctx, caller, f.Get("disputeId")); err == nil && d.OrderID != o.ID {
			return market.NotFound("dispute") // this page answers this order's dispute only
		} else if err == nil {
			_, err = disputes.Respond(ctx, caller, d.ID, f.Get("response"), nil)
		}
	default:
		return market.Errorf(market.CodeNotFound, "no such page")
	}
	if err != nil {
		e := refusal(err)
		if e == nil {
			return err
		}
		return c.showOrder(v, httpapi.Status(e.Code), e)
	}
	http.Redirect(v.w, v.r, "/orders/"+o.ID, http.StatusSeeOther)
	return nil
}

// orderLabel is the label's PDF for the seller to print, as GET
// /orders/{id}/shipping/label serves it to a bearer token.
func (c *Console) orderLabel(v *visit) error {
	o, err := c.order(v)
	if err != nil {
		return err
	}
	pdf, err := c.Ops.Orders.Label(v.r.Context(), v.caller().Actor, o.ID)
	if err != nil {
		return err
	}
	h := v.w.Header()
	h.Set("Content-Type", "application/pdf")
	h.Set("Content-Length", strconv.Itoa(len(pdf)))
	h.Set("Content-Disposition", `inline; filename="label-`+o.ID+`.pdf"`)
	v.w.WriteHeader(http.StatusOK)
	_, _ = v.w.Write(pdf) // the answer has begun: a failed write is the browser gone
	return nil
}

// eventWords are the timeline's entries in words.
var eventWords = map[string]string{
	"order.created":       "Ordered",
	"approval.required":   "Waiting for the owner's approval",
	"payment.succeeded":   "Paid",
	"payment.failed":      "Payment failed",
	"label.purchased":     "Shipping label bought",
	"order.shipped":       "Shipped",
	"pickup.ready":        "Ready for pickup",
	"order.delivered":     "Delivered",
	"payment.released":    "Payout released to the seller",
	"order.completed":     "Completed",
	"order.cancelled":     "Cancelled",
	"order.expired":       "Expired",
	"refund.requested":    "Refund requested",
	"refund.approved":     "Refund approved",
	"refund.declined":     "Refund declined",
	"refund.created":      "Refund made",
	"refund.issued":       "Refund issued",
	"order.disputed":      "Dispute opened",
	"dispute.responded":   "The seller answered the dispute",
	"dispute.resolved":    "Dispute resolved",
	"payout.hold_changed": "Payout date changed",
}

// timelineOf is an event in words, with what matters of its data: the
// tracking of a shipment, the amount of a refund, a reason.
func timelineOf(e api.TimelineEvent) timelineRow {
	row := timelineRow{At: e.CreatedAt, What: eventWords[e.Type]}
	if row.What == "" {
		row.What = e.Type
	}
	str := func(k string) string { s, _ := e.Data[k].(string); return s }
	var parts []string
	switch e.Type {
	case "order.shipped", "label.purchased":
		if c := str("carrier"); c != "" {
			parts = append(parts, carrierName(c)+" "+strings.ReplaceAll(str("service"), "_", " "))
		}
		if t := str("trackingNumber"); t != "" {
			parts = append(parts, "tracking "+t)
		}
	case "order.delivered":
		if str("via") == "pickup" {
			row.What = "Picked up"
		}
	case "refund.requested", "refund.approved", "refund.created", "refund.issued", "dispute.resolved":
		if n, ok := number(e.Data["amount"]); ok {
			parts = append(parts, "$"+shipping.FormatCents(n))
		}
	}
	for _, k := range []string{"resolution", "reason"} {
		if s := str(k); s != "" {
			parts = append(parts, strings.ReplaceAll(s, "_", " "))
		}
	}
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	row.Detail = strings.Join(parts, ", ")
	return row
}

// number is an event's number, however its data was decoded.
func number(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case float64:
		return int64(n), true
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	}
	return 0, false
}

// carrierName is a carrier as people write it.
func carrierName(c string) string {
	switch strings.ToLower(c) {
	case "usps":
		return "USPS"
	case "ups":
		return "UPS"
	case "fedex":
		return "FedEx"
	case "dhl":
		return "DHL"
	}
	return c
}
