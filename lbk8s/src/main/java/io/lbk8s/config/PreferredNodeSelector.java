package io.lbk8s.config;

/**
 * A weighted node preference of an L2Advertisement, as in Kubernetes' preferred scheduling terms: among the nodes
 * allowed to announce, those whose labels match {@code preference} gain {@code weight} (1-100); the highest total
 * announces.
 */
public record PreferredNodeSelector(int weight, LabelSelector preference) {

    public static final int MIN_WEIGHT = 1;
    public static final int MAX_WEIGHT = 100;

    public PreferredNodeSelector {
        if (weight < MIN_WEIGHT || weight > MAX_WEIGHT) {
            throw new IllegalArgumentException("weight must be 1-100, not " + weight);
        }
    }
}
