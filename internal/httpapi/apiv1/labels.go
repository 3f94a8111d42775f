package apiv1

import (
	"net/http"
	"strconv"

	"marketplace/internal/httpapi"
	"marketplace/internal/orders"
)

// RegisterLabels adds the platform-funded shipping label routes.
func (a *API) RegisterLabels(rt *httpapi.Router) {
	rt = rt.In("shipping")
	rt.Handle("POST", Prefix+"/orders/{id}/shipping/label", httpapi.Bearer, a.buyLabel)
	rt.Handle("GET", Prefix+"/orders/{id}/shipping/label", httpapi.Bearer, a.labelPDF)
}

type labelBody struct {
	Carrier string `json:"carrier" maxLength:"20" example:"usps" doc:"'usps', 'ups' or 'fedex', in any case; any when absent."`
	Service string `json:"service" maxLength:"60" example:"ground_advantage" doc:"A service of the carrier, such as 'ground_advantage' or 'priority'; any when absent."`
}

// buyLabel is POST /orders/{id}/shipping/label {carrier?, service?}: 201
// with the label bought, 200 with the one an earlier call bought.
func (a *API) buyLabel(w http.ResponseWriter, r *http.Request) error {
	id := httpapi.PathEntity(r, "order")
	var b labelBody
	if err := decodeOptional(r, &b); err != nil {
		return err
	}
	l, err := a.OrderOps().BuyLabel(r.Context(), actor(r), id, orders.LabelRequest{Carrier: b.Carrier, Service: b.Service})
	if err != nil {
		return err
	}
	status := http.StatusOK
	if l.Bought {
		status = http.StatusCreated
	}
	return httpapi.OK(w, r, status, l)
}

// labelPDF is GET /orders/{id}/shipping/label: the label's PDF, for the
// seller to print.
func (a *API) labelPDF(w http.ResponseWriter, r *http.Request) error {
	id := httpapi.PathEntity(r, "order")
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
