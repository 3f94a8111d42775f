package web

import (
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"time"

	"marketplace/internal/httpapi"
	"marketplace/internal/payments"
)

// RegisterDashboard adds the sandbox seller dashboard, where the login links
// of GET /seller/connect/dashboard lead.
func (s *Sandbox) RegisterDashboard(rt *httpapi.Router) {
	rt = rt.In("identity_verification", "payouts")
	p := strings.TrimSuffix(payments.SandboxDashboardPath, "/")
	rt.Handle("GET", p+"/{token}", httpapi.Public, s.dashboardPage)
}

var dashboardTmpl = template.Must(template.Must(pages.Clone()).Parse(`
{{define "dashboard"}}{{template "head" "Seller dashboard"}}
<h1>Seller dashboard</h1>
<p class="note">Sandbox: this page stands in for the payment processor's seller dashboard. No real money moves.</p>
<p>Account <code>{{.AccountID}}</code> ({{.Country}}, {{.BusinessType}}): {{.Status}}, payouts {{if .PayoutsEnabled}}enabled{{else}}not enabled{{end}}.</p>
<h2>Transfers</h2>
{{if .Transfers}}<table><tr><th>Date</th><th>Transfer</th><th>Amount</th><th>Reversed</th></tr>
{{range .Transfers}}<tr><td>{{.Date}}</td><td><code>{{.ID}}</code></td><td>{{.Amount}}</td><td>{{.Reversed}}</td></tr>
{{end}}</table>{{else}}<p>No transfers yet.</p>{{end}}
<p>Total transferred: <strong>{{.Total}}</strong></p>
<p><small>This link works until {{.ExpiresAt}}.</small></p>
</body></html>{{end}}
`))

type dashboardTransfer struct {
	ID        string    `json:"id"`
	Amount    int64     `json:"amount" doc:"Cents."`
	Reversed  int64     `json:"reversed" doc:"Cents taken back."`
	CreatedAt time.Time `json:"createdAt"`
}

type dashboardJSON struct {
	AccountID        string              `json:"accountId"`
	Status           string              `json:"status" ref:"PayoutAccountStatus"`
	PayoutsEnabled   bool                `json:"payoutsEnabled"`
	Country          string              `json:"country"`
	BusinessType     string              `json:"businessType"`
	Transfers        []dashboardTransfer `json:"transfers"`
	TotalTransferred int64               `json:"totalTransferred" doc:"Cents transferred, less reversals."`
	ExpiresAt        time.Time           `json:"expiresAt" doc:"When this link stops working."`
}

type dashboardRow struct{ Date, ID, Amount, Reversed string }

func (s *Sandbox) dashboardPage(w http.ResponseWriter, r *http.Request) error {
	d, err := s.Payments.SandboxDashboard(r.Context(), r.PathValue("token"))
	if err != nil {
		return err
	}
	a := d.Account
	if !httpapi.WantsHTML(r) {
		out := dashboardJSON{AccountID: a.ExternalID, Status: string(a.Status), PayoutsEnabled: a.PayoutsEnabled, Country: a.Country,
			BusinessType: a.BusinessType, Transfers: make([]dashboardTransfer, len(d.Transfers)), TotalTransferred: d.Total,
			ExpiresAt: d.ExpiresAt}
		for i, t := range d.Transfers {
			out.Transfers[i] = dashboardTransfer{ID: t.ID, Amount: t.Amount, Reversed: t.Reversed, CreatedAt: t.CreatedAt}
		}
		return httpapi.OK(w, r, http.StatusOK, out)
	}
	rows := make([]dashboardRow, len(d.Transfers))
	for i, t := range d.Transfers {
		rows[i] = dashboardRow{Date: t.CreatedAt.Format("2006-01-02 15:04 MST"), ID: t.ID, Amount: dashboardMoney(t.Amount), Reversed: dashboardMoney(t.Reversed)}
	}
	return renderStatus(w, http.StatusOK, dashboardTmpl, "dashboard", map[string]any{
		"AccountID": a.ExternalID, "Country": a.Country, "BusinessType": a.BusinessType, "Status": string(a.Status),
		"PayoutsEnabled": a.PayoutsEnabled, "Transfers": rows, "Total": dashboardMoney(d.Total),
		"ExpiresAt": d.ExpiresAt.Format("2006-01-02 15:04 MST"),
	})
}

// dashboardMoney formats cents as $1,234.56 without floating point.
func dashboardMoney(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	whole := fmt.Sprint(cents / 100)
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return fmt.Sprintf("%s$%s.%02d", sign, b.String(), cents%100)
}
