package arch

import (
	"fmt"
	"sort"

	"dossier/generator/snapshot"
)

// ParseSnapshot is ParseWithTensors on a snapshot: its config.json and
// hf_quant_config.json, with the tensor shapes it kept (a sync keeps them
// when ShapesWanted says so).
func ParseSnapshot(s *snapshot.Snapshot) (*Architecture, error) {
	ts, err := SnapshotShapes(s)
	if err != nil {
		return nil, err
	}
	return ParseWithTensors(s.Config, s.HFQuantConfig, ts)
}

// SnapshotShapes returns the tensor shapes a snapshot kept, by name; nil
// when it kept none.
func SnapshotShapes(s *snapshot.Snapshot) ([]TensorShape, error) {
	if len(s.Tensors) == 0 {
		return nil, nil
	}
	names := make([]string, 0, len(s.Tensors))
	for name := range s.Tensors {
		names = append(names, name)
	}
	sort.Strings(names)
	ts := make([]TensorShape, len(names))
	for i, name := range names {
		shape, err := snapshot.ParseShape(s.Tensors[name])
		if err != nil {
			return nil, fmt.Errorf("field tensors.%s: %w", name, err)
		}
		ts[i] = TensorShape{Name: name, Shape: shape}
	}
	return ts, nil
}

// ShapesWanted reports whether a sync should keep every tensor's shape for
// this config.json: when the registry does not know the family, the
// layout is then inferred from the shapes (Infer). A known family's
// layout follows from config.json, and the shapes would only weigh on the
// snapshot. A config Parse rejects keeps none: the shapes cannot size it.
func ShapesWanted(config []byte) bool {
	a, err := Parse(config, nil)
	return err == nil && !a.FamilyKnown
}
