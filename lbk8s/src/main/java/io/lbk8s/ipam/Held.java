package io.lbk8s.ipam;

import io.lbk8s.service.AllocationRequest;

/** What a Service holds, and the request it was last checked against. */
record Held(AllocationRequest request, Assignment assignment) {}
