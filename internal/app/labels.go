package app

import (
	"context"
	"fmt"
	"io"

	"marketplace/internal/jobs"
	"marketplace/internal/listings"
	"marketplace/internal/listings/photos"
	"marketplace/internal/market"
	"marketplace/internal/orders"
	"marketplace/internal/shipping"
)

// maxLabelBytes bounds what is read back of a stored label; a printed one
// is a few kilobytes.
const maxLabelBytes = 1 << 20

// labelMaker is orders.LabelMaker over the shipping service's rate engine
// and label printer, keeping labels in the object store the photos use,
// under labels/.
type labelMaker struct {
	shipping *shipping.Service
	objects  photos.Store
}

// labelKey is where label l is kept: one object per label bought or tried.
func labelKey(l *orders.Label) string { return "labels/" + l.OrderID + "/" + l.ID + ".pdf" }

// Rates quotes the listing's parcel (with the seller's package defaults)
// with every carrier the platform can issue tracking numbers for, cheapest
// first, the seller's preferred carrier's marked.
func (m *labelMaker) Rates(ctx context.Context, l *listings.Listing, fromZip, toZip string) ([]orders.ShippingRate, error) {
	var c market.Check
	from := shipping.CheckZip(&c, "shipFromAddress.zip", fromZip)
	to := shipping.CheckZip(&c, "shippingAddress.zip", toZip)
	if err := c.Err(); err != nil {
		return nil, err
	}
	prefs, err := m.shipping.Prefs(ctx, l.SellerID)
	if err != nil {
		return nil, err
	}
	rates, err := m.shipping.QuoteParcel(ctx, from, to, prefs.Parcel(l))
	if err != nil {
		return nil, err
	}
	out := make([]orders.ShippingRate, 0, len(rates))
	for _, r := range rates {
		if _, ok := shipping.NormalizeCarrier(r.Carrier); ok {
			out = append(out, orders.ShippingRate{Carrier: r.Carrier, Service: r.Service, Amount: r.Amount,
				EstimatedDays: r.EstimatedDays, Preferred: prefs.Prefers(r.Carrier, r.Service)})
		}
	}
	return out, nil
}

// Print draws label l with a tracking number seeded by the order id and
// stores the PDF.
func (m *labelMaker) Print(ctx context.Context, l *orders.Label, in orders.LabelSheet) (string, error) {
	prefs, err := m.shipping.Prefs(ctx, in.Listing.SellerID)
	if err != nil {
		return "", err
	}
	tracking := shipping.NewTrackingNumber(l.Carrier, []byte(l.OrderID))
	pdf, err := shipping.LabelPDF(shipping.LabelInput{From: in.From, To: in.To, FromName: in.FromName,
		Carrier: l.Carrier, Service: l.Service, TrackingNumber: tracking, WeightOz: prefs.Parcel(in.Listing).WeightOz,
		OrderID: l.OrderID, Created: l.CreatedAt})
	if err != nil {
		// Rates offers only carriers with tracking numbers: a failure here
		// is the service's own.
		return "", market.Internal(fmt.Errorf("print label for %s: %w", l.OrderID, err))
	}
	if err := m.objects.Put(ctx, labelKey(l), pdf, "application/pdf"); err != nil {
		return "", err
	}
	return tracking, nil
}

// Open reads a stored label's PDF.
func (m *labelMaker) Open(ctx context.Context, l *orders.Label) ([]byte, error) {
	key := labelKey(l)
	if !photos.ValidKey(key) {
		return nil, market.NotFound("label")
	}
	rc, _, err := m.objects.Open(ctx, key)
	if market.CodeOf(err) == market.CodeNotFound {
		return nil, market.NotFound("label")
	}
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	pdf, err := io.ReadAll(io.LimitReader(rc, maxLabelBytes+1))
	if err != nil {
		return nil, market.Internal(fmt.Errorf("read label %s: %w", key, err))
	}
	if len(pdf) > maxLabelBytes {
		return nil, market.Internal(fmt.Errorf("label %s: larger than any printed label", key))
	}
	return pdf, nil
}

// Discard removes a label printed but not bought.
func (m *labelMaker) Discard(ctx context.Context, l *orders.Label) error {
	return m.objects.Delete(ctx, labelKey(l))
}

// autoLabels is the orders' OnPaid hook: a paid order that ships, whose
// seller has automatic labels on, gets its label bought by a job enqueued
// in the settling transaction, so the purchase never waits for the carrier
// and a crash cannot lose the label once the order is paid.
type autoLabels struct {
	shipping *shipping.Service
	queue    *jobs.Queue
}

func (l autoLabels) OnPaid(ctx context.Context, tx orders.Tx, o *orders.Order) error {
	if o.Fulfillment != orders.FulfillShipping || o.ShippingAddress == nil {
		return nil
	}
	prefs, err := l.shipping.Prefs(ctx, o.SellerID)
	if err != nil || !prefs.AutoLabel {
		return err
	}
	return l.queue.ScheduleAutoLabel(ctx, tx, o.ID)
}
