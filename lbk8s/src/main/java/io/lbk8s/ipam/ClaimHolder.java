package io.lbk8s.ipam;

import io.lbk8s.service.ServiceKey;

/** A Service named by an address claim; the uid tells it apart from a later Service of the same name. */
public record ClaimHolder(ServiceKey service, String uid) {}
