package pricing

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
)

// AzureEndpoint is the public, unauthenticated Azure Retail Prices API.
const AzureEndpoint = "https://prices.azure.com/api/retail/prices"

// AzureRegion is the region quoted unless DOSSIER_PRICING_AZURE_REGION
// names another (an armRegionName such as westeurope).
const AzureRegion = "eastus"

// azurePage is one page of the Retail Prices API.
type azurePage struct {
	BillingCurrency string      `json:"BillingCurrency"`
	Items           []azureItem `json:"Items"`
	NextPageLink    *string     `json:"NextPageLink"`
	Count           int         `json:"Count"`
}

type azureItem struct {
	CurrencyCode  string  `json:"currencyCode"`
	RetailPrice   float64 `json:"retailPrice"`
	UnitPrice     float64 `json:"unitPrice"`
	ArmRegionName string  `json:"armRegionName"`
	ProductName   string  `json:"productName"`
	SkuName       string  `json:"skuName"`
	MeterName     string  `json:"meterName"`
	ServiceName   string  `json:"serviceName"`
	UnitOfMeasure string  `json:"unitOfMeasure"`
	Type          string  `json:"type"`
	ArmSkuName    string  `json:"armSkuName"`
}

// azureFilter asks for the Linux and Windows, on-demand and spot meters
// of the mapped VM sizes in one region; the rest is filtered here, where
// the rule can be read and tested.
func azureFilter(region string, skus []SKU) string {
	names := make([]string, 0, len(skus))
	for _, s := range skus {
		names = append(names, "armSkuName eq '"+strings.ReplaceAll(s.SKU, "'", "''")+"'")
	}
	sort.Strings(names)
	return fmt.Sprintf("serviceName eq 'Virtual Machines' and priceType eq 'Consumption' and armRegionName eq '%s' and (%s)",
		strings.ReplaceAll(region, "'", "''"), strings.Join(names, " or "))
}

// azureLinuxOnDemand says whether a meter is the pay-as-you-go Linux
// price of a VM: Windows meters carry the licence in their product name,
// Spot and Low Priority meters say so in their meter and SKU names.
func azureLinuxOnDemand(it azureItem) bool {
	if it.Type != "Consumption" || it.UnitOfMeasure != "1 Hour" {
		return false
	}
	if strings.HasSuffix(strings.TrimSpace(it.ProductName), "Windows") {
		return false
	}
	for _, s := range []string{it.MeterName, it.SkuName} {
		if strings.Contains(s, "Spot") || strings.Contains(s, "Low Priority") {
			return false
		}
	}
	return true
}

func fetchAzure(ctx context.Context, c *client, endpoint string, skus []SKU, env func(string) string) (*fetchResult, error) {
	region := strings.TrimSpace(env("DOSSIER_PRICING_AZURE_REGION"))
	if region == "" {
		region = AzureRegion
	}
	if len(skus) == 0 {
		return nil, fmt.Errorf("azure: skus.yaml maps no Azure VM sizes: nothing to ask for")
	}
	base, err := url.Parse(endpoint)
	if err != nil {
		return nil, fmt.Errorf("azure: endpoint %q: %w", endpoint, err)
	}
	q := base.Query()
	q.Set("$filter", azureFilter(region, skus))
	base.RawQuery = q.Encode()
	next := base.String()

	res := &fetchResult{Scope: fmt.Sprintf("region %s; Linux pay-as-you-go meters (type Consumption, 1 Hour) only: Windows, Spot and Low Priority meters excluded", region)}
	found := map[string][]azureItem{}
	seen := map[string]bool{}
	for pages := 0; next != ""; pages++ {
		if pages >= 200 || seen[next] {
			return nil, fmt.Errorf("azure: NextPageLink does not end (page %d: %s)", pages+1, showURL(next))
		}
		seen[next] = true
		b, err := c.do(ctx, "GET", next, nil, nil)
		if err != nil {
			return nil, err
		}
		var page azurePage
		if err := json.Unmarshal(b, &page); err != nil {
			return nil, fmt.Errorf("azure: GET %s: unexpected answer: %w", showURL(next), err)
		}
		if page.Items == nil {
			return nil, fmt.Errorf("azure: GET %s: answer has no Items array: the API's shape changed", showURL(next))
		}
		for _, it := range page.Items {
			if it.ArmRegionName != region || !azureLinuxOnDemand(it) {
				continue
			}
			found[it.ArmSkuName] = append(found[it.ArmSkuName], it)
		}
		next = ""
		if page.NextPageLink != nil && *page.NextPageLink != "" {
			if next, err = onEndpoint(*page.NextPageLink, base); err != nil {
				return nil, fmt.Errorf("azure: NextPageLink: %w", err)
			}
		}
	}
	names := make([]string, 0, len(found))
	for n := range found {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		its := found[n]
		if len(its) > 1 {
			var meters []string
			for _, it := range its {
				meters = append(meters, fmt.Sprintf("%q/%q at %g", it.ProductName, it.MeterName, it.RetailPrice))
			}
			return nil, fmt.Errorf("azure: %s in %s: %d Linux on-demand meters (%s): expected one", n, region, len(its), strings.Join(meters, ", "))
		}
		res.Offers = append(res.Offers, offer{SKU: n, USDPerHour: its[0].RetailPrice, Currency: its[0].CurrencyCode, Region: region})
	}
	return res, nil
}

// onEndpoint moves a next-page link onto the configured endpoint's host,
// so a mirror or a test server keeps answering (as HF_ENDPOINT does for
// the Hub's Link headers); a relative link resolves against it.
func onEndpoint(link string, base *url.URL) (string, error) {
	u, err := url.Parse(link)
	if err != nil {
		return "", err
	}
	u = base.ResolveReference(u)
	u.Scheme, u.Host = base.Scheme, base.Host
	return u.String(), nil
}
