package web

import "marketplace/internal/httpapi/apidoc"

// Components are the schemas of the pages' JSON answers, in the Variant A
// document.
func Components() []apidoc.Component {
	return []apidoc.Component{
		{Name: "CheckoutPage", Of: checkoutView{}},
		{Name: "SandboxOnboarding", Of: onboardingView{}},
		{Name: "SandboxPayoutDashboard", Of: dashboardJSON{}},
		{Name: "SandboxPayoutTransfer", Of: dashboardTransfer{}},
		{Name: "StripeWebhookReceipt", Of: webhookReceipt{}},
		apidoc.Envelope("CheckoutPageEnvelope", checkoutView{}, "Meta"),
		apidoc.Envelope("SandboxOnboardingEnvelope", onboardingView{}, "Meta"),
		apidoc.Envelope("SandboxPayoutDashboardEnvelope", dashboardJSON{}, "Meta"),
		apidoc.Envelope("StripeWebhookReceiptEnvelope", webhookReceipt{}, "Meta"),
	}
}
