package io.lbk8s.ipam;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.address.IpAddress;
import io.lbk8s.service.AllocationRequest;
import io.lbk8s.service.ServiceKey;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class HeldMapTest {

    @Test
    void behavesLikeAHashMap() {
        Random random = new Random(5);
        HeldMap map = new HeldMap();
        Map<ServiceKey, Assignment> model = new HashMap<>();
        for (int i = 0; i < 200_000; i++) {
            ServiceKey key = new ServiceKey("ns" + random.nextInt(7), "s" + random.nextInt(400));
            if (random.nextInt(3) < 2) {
                Assignment a = new Assignment(key, "p", List.of(IpAddress.v4(i)));
                map.put(key, AllocationRequest.simple(key), a);
                model.put(key, a);
            } else {
                assertThat(map.remove(key)).isEqualTo(model.remove(key) == null ? null : AllocationRequest.simple(key));
            }
            assertThat(map.assignment(key)).isEqualTo(model.get(key));
            assertThat(map.request(key)).isEqualTo(model.containsKey(key) ? AllocationRequest.simple(key) : null);
            assertThat(map.size()).isEqualTo(model.size());
        }
        assertThat(new HashSet<>(map.assignments())).isEqualTo(new HashSet<>(model.values()));
        assertThat(map.requests()).hasSize(model.size());
        map.clear();
        assertThat(map.size()).isZero();
    }
}
