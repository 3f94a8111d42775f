package console

import (
	"net/http"
	"time"

	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/orders"
)

// The finance summary as GET /admin/finance/summary gives it: the orders
// paid in a range of UTC days and what they made, in cents that reconcile
// with the orders. Without dates the range is this month so far.

type adminFinanceData struct {
	StartDate, EndDate string
	Finance            *orders.Finance
	Error              *market.Error
}

func (c *Console) adminFinancePage(v *visit) error {
	q := v.r.URL.Query()
	d := adminFinanceData{StartDate: q.Get("startDate"), EndDate: q.Get("endDate")}
	if d.StartDate == "" && d.EndDate == "" {
		now := c.now()
		d.StartDate = time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
		d.EndDate = now.Format(time.DateOnly)
	}
	f, err := c.Ops.Orders.FinanceSummary(v.r.Context(), v.caller().Actor, d.StartDate, d.EndDate)
	if err != nil {
		// Dates that are refused are shown again in the form, with why.
		if d.Error = refusal(err); d.Error == nil {
			return err
		}
		return c.render(v, httpapi.Status(d.Error.Code), "admin_finance", d)
	}
	d.Finance = f
	return c.render(v, http.StatusOK, "admin_finance", d)
}

// now is the service's time in UTC.
func (c *Console) now() time.Time {
	if c.Admin.Clock != nil {
		return c.Admin.Clock.Now().UTC()
	}
	return time.Now().UTC()
}
