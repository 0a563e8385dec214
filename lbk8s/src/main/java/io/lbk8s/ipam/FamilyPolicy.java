package io.lbk8s.ipam;

/** A Service's {@code spec.ipFamilyPolicy}. */
public enum FamilyPolicy {
    SingleStack, PreferDualStack, RequireDualStack
}
