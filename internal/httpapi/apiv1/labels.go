package apiv1

import (
	"net/http"
	"strconv"
	"time"

	"marketplace/internal/httpapi"
	"marketplace/internal/orders"
	"marketplace/internal/shipping"
)

// RegisterLabels adds the platform-funded shipping label routes.
func (a *API) RegisterLabels(rt *httpapi.Router) {
	rt.Handle("POST", Prefix+"/orders/{id}/shipping/label", httpapi.Bearer, a.buyLabel)
	rt.Handle("GET", Prefix+"/orders/{id}/shipping/label", httpapi.Bearer, a.labelPDF)
}

type labelBody struct {
	Carrier string `json:"carrier" maxLength:"20" example:"usps" doc:"'usps', 'ups' or 'fedex', in any case; any when absent."`
	Service string `json:"service" maxLength:"60" example:"ground_advantage" doc:"A service of the carrier, such as 'ground_advantage' or 'priority'; any when absent."`
}

// label is a bought label and the order it shipped.
type label struct {
	ID             string    `json:"id" doc:"The label's id."`
	OrderID        string    `json:"orderId"`
	Carrier        string    `json:"carrier" example:"usps"`
	Service        string    `json:"service" example:"ground_advantage"`
	TrackingNumber string    `json:"trackingNumber" example:"9400100000000000000000"`
	TrackingURL    *string   `json:"trackingUrl" doc:"The carrier's public tracking page."`
	Cost           int64     `json:"cost" doc:"What the platform paid the carrier, in cents."`
	LabelURL       string    `json:"labelUrl" doc:"'GET' it with the seller's bearer token for the PDF."`
	CreatedAt      time.Time `json:"createdAt" doc:"When the label was bought."`
	Order          order     `json:"order"`
}

// buyLabel is POST /orders/{id}/shipping/label {carrier?, service?}: 201
// with the label bought, 200 with the one an earlier call bought.
func (a *API) buyLabel(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	httpapi.Entity(r, "order", id)
	var b labelBody
	if err := decodeOptional(r, &b); err != nil {
		return err
	}
	p := actor(r)
	o, l, err := a.Orders.BuyLabel(r.Context(), p.Actor, id, orders.LabelRequest{Carrier: b.Carrier, Service: b.Service})
	if err != nil {
		return err
	}
	out := label{ID: l.ID, OrderID: o.ID, Carrier: l.Carrier, Service: l.Service, TrackingNumber: l.TrackingNumber,
		TrackingURL: strOrNil(shipping.TrackingURL(l.Carrier, l.TrackingNumber)), Cost: l.Cost,
		LabelURL: a.PublicURL + Prefix + "/orders/" + o.ID + "/shipping/label", CreatedAt: l.CreatedAt,
		Order: toOrder(o, p.Actor)}
	status := http.StatusOK
	if l.Bought {
		status = http.StatusCreated
	}
	return httpapi.OK(w, r, status, out)
}

// labelPDF is GET /orders/{id}/shipping/label: the label's PDF, for the
// seller to print.
func (a *API) labelPDF(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	httpapi.Entity(r, "order", id)
	pdf, err := a.Orders.Label(r.Context(), actor(r).Actor, id)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/pdf")
	h.Set("Content-Length", strconv.Itoa(len(pdf)))
	h.Set("Content-Disposition", `inline; filename="label-`+id+`.pdf"`)
	h.Set("X-Content-Type-Options", "nosniff")
	// The label carries both parties' addresses: no shared cache keeps it.
	h.Set("Cache-Control", "private, no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(pdf) // the answer has begun: a failed write is the client gone
	return nil
}
