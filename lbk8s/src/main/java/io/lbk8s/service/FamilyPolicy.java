package io.lbk8s.service;

/** A Service's {@code spec.ipFamilyPolicy}. */
public enum FamilyPolicy {
    SingleStack,
    PreferDualStack,
    RequireDualStack
}
