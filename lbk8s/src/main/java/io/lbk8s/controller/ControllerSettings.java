package io.lbk8s.controller;

import java.util.Optional;

/**
 * @param namespace  where the configuration (IPAddressPools, L2Advertisements, the lbk8s ConfigMap) is read from
 * @param lbClass    the {@code --lb-class} flag: empty serves Services without a class and of class lbk8s.io/l2
 */
public record ControllerSettings(String namespace, Optional<String> lbClass) {}
