package catalog

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestBadHostNamesField(t *testing.T) {
	const valid = "class: consumer, memory_bytes: 1000, gpus_per_node: 8, memory_bandwidth: {value: 1e12, source: s, as_of: \"2026-01-01\"}, "
	for _, tc := range []struct{ host, want string }{
		{"host: {gpus: 0, scale_up: 0, fabric: none, source: s, as_of: \"2026-01-01\"}", "accelerators[0].host.gpus"},
		{"host: {gpus: 8, scale_up: -1, fabric: none, source: s, as_of: \"2026-01-01\"}", "accelerators[0].host.scale_up"},
		{"host: {gpus: 8, scale_up: 8, source: s, as_of: \"2026-01-01\"}", "accelerators[0].host.fabric"},
		{"host: {gpus: 8, scale_up: 8, fabric: none, as_of: \"2026-01-01\"}", "accelerators[0].host.source"},
		{"host: {gpus: 8, scale_up: 8, fabric: none, source: s, as_of: soon}", "accelerators[0].host.as_of"},
	} {
		dir := t.TempDir()
		write(t, dir, "hardware.yaml", bad(valid+tc.host))
		_, err := Load(dir)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "hardware.yaml") {
			t.Errorf("%s: error %v, want one naming hardware.yaml and %s", tc.host, err, tc.want)
		}
	}
}

// Every shipped accelerator states how it is installed: the deployment
// plans cannot place a model on a part without it.
func TestShippedHostsAreStated(t *testing.T) {
	c, err := Load(filepath.Join("..", "..", "data"))
	if err != nil {
		t.Fatal(err)
	}
	for id, a := range c.Accelerators {
		h := a.Host
		if h == nil {
			t.Errorf("%s: no host", id)
			continue
		}
		// Consumer, workstation, Apple and CPU parts are sold without a
		// scale-out fabric; an NVLink/xGMI part with one.
		switch {
		case a.Class != "datacenter" && h.HasFabric():
			t.Errorf("%s (%s) has a fabric %q", id, a.Class, h.Fabric)
		case h.ScaleUp > 0 && !h.HasFabric():
			t.Errorf("%s: a scale-up domain without a fabric", id)
		case h.ScaleUp > 0 && h.ScaleUp < h.GPUs:
			t.Errorf("%s: scale-up domain %d smaller than a host of %d", id, h.ScaleUp, h.GPUs)
		}
	}
	if d := c.Accelerators["GB300NVL72"].Host.Domain(); d != 72 {
		t.Errorf("GB300 NVL72 domain = %d, want 72", d)
	}
	if d := c.Accelerators["RTX4090"].Host.Domain(); d != 8 {
		t.Errorf("RTX 4090 domain (one PCIe host) = %d, want 8", d)
	}
}
