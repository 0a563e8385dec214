package io.lbk8s.controller;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.lbk8s.address.IpAddress;
import io.lbk8s.ipam.Assignment;
import io.lbk8s.ipam.Claim;
import io.lbk8s.ipam.ClaimHolder;
import io.lbk8s.kube.IpAddressClaims;
import io.lbk8s.service.ServiceKey;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller's side of address claims: a Service's status shows an address only while the Service holds its
 * claim, and a claim is let go only after the status stopped showing the address. Between the two, the API server's
 * refusal of a second object of one name is what keeps two controllers from giving one address to two Services.
 */
final class ClaimKeeper {
    private static final Logger log = LoggerFactory.getLogger(ClaimKeeper.class);
    private static final int ATTEMPTS = 3; // a stale claim is deleted and created again; others retry on the next pass

    private final IpAddressClaims claims;
    private final Predicate<ClaimHolder> exists;

    /** @param exists whether the Service a claim names still exists (the same uid), asked of the API if not cached */
    ClaimKeeper(IpAddressClaims claims, Predicate<ClaimHolder> exists) {
        this.claims = claims;
        this.exists = exists;
    }

    /** An address of the assignment whose claim other live Services hold. */
    record Refusal(IpAddress address, List<ClaimHolder> holders) {}

    /**
     * Holds a claim on every address of the assignment; empty when it does, else the first address other Services
     * hold. Claims taken before a refusal are kept: the caller lets them go.
     */
    Optional<Refusal> hold(ClaimHolder holder, Assignment assignment, Optional<String> sharingKey) {
        for (IpAddress ip : assignment.ips()) {
            List<ClaimHolder> others = hold(holder, ip, assignment.pool(), sharingKey);
            if (!others.isEmpty()) {
                return Optional.of(new Refusal(ip, others));
            }
        }
        return Optional.empty();
    }

    private List<ClaimHolder> hold(ClaimHolder holder, IpAddress ip, String pool, Optional<String> sharingKey) {
        Claim wanted = new Claim(ip, pool, sharingKey, List.of(holder), "");
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            switch (claims.create(wanted)) {
                case IpAddressClaims.Created.Done _ -> {
                    return List.of();
                }
                case IpAddressClaims.Created.Exists(Claim there) -> {
                    switch (there.decide(holder, sharingKey, exists)) {
                        case Claim.Decision.Held _ -> {
                            return List.of();
                        }
                        case Claim.Decision.Join _ -> {
                            claims.update(there.with(holder)); // 409 if it changed since read: the reconcile is retried
                            return List.of();
                        }
                        case Claim.Decision.Stale _ -> {
                            log.info(
                                    "IPAddressClaim {}: its Services {} are gone; replacing it for {}",
                                    Claim.nameOf(ip),
                                    there.holders(),
                                    holder.service());
                            claims.delete(there);
                        }
                        case Claim.Decision.HeldByOthers(List<ClaimHolder> others) -> {
                            return others;
                        }
                    }
                }
            }
        }
        throw new KubernetesClientException(
                "IPAddressClaim " + Claim.nameOf(ip) + " changed " + ATTEMPTS + " times while being claimed",
                409,
                null);
    }

    /** Whether every address is claimed by the Service (read now, not from a cache). */
    boolean heldBy(ClaimHolder holder, List<IpAddress> ips) {
        return ips.stream()
                .allMatch(ip ->
                        claims.get(ip).map(c -> c.holders().contains(holder)).orElse(false));
    }

    /** The live Services that hold the claim of one of the addresses and this one does not share (read now). */
    List<ClaimHolder> heldByOthers(ClaimHolder holder, List<IpAddress> ips) {
        return ips.stream()
                .flatMap(ip -> claims.get(ip).stream())
                .flatMap(c -> c.heldByOthers(holder, exists).stream())
                .distinct()
                .toList();
    }

    /** Lets go of the Service's claims on these addresses (after its status stopped showing them). */
    void release(ServiceKey service, Collection<IpAddress> ips) {
        for (IpAddress ip : ips) {
            for (int attempt = 0; ; attempt++) {
                try {
                    claims.release(service, ip);
                    break;
                } catch (KubernetesClientException e) {
                    if (e.getCode() != 409 || attempt + 1 >= ATTEMPTS) {
                        throw e;
                    }
                }
            }
        }
    }

    List<Claim> all() {
        return claims.list();
    }
}
