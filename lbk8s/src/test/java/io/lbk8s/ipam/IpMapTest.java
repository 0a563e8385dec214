package io.lbk8s.ipam;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpFamily;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class IpMapTest {

    @Test
    void behavesLikeAHashMap() {
        Random random = new Random(11);
        IpMap<Integer> map = new IpMap<>();
        Map<IpAddress, Integer> model = new HashMap<>();
        for (int i = 0; i < 200_000; i++) {
            // a small key space, both families, v4 and v6 with equal low bits, so that runs collide and wrap
            long low = random.nextInt(3000);
            IpAddress ip = switch (random.nextInt(3)) {
                case 0 -> IpAddress.v4(low);
                case 1 -> new IpAddress(IpFamily.IPv6, 0, low);
                default -> new IpAddress(IpFamily.IPv6, 0xfd00_0000_0000_0000L, low << 40);
            };
            switch (random.nextInt(3)) {
                case 0, 1 -> {
                    map.put(ip, i);
                    model.put(ip, i);
                }
                default -> {
                    map.remove(ip);
                    model.remove(ip);
                }
            }
            assertThat(map.get(ip)).isEqualTo(model.get(ip));
            assertThat(map.size()).isEqualTo(model.size());
        }
        for (var e : model.entrySet()) {
            assertThat(map.get(e.getKey())).isEqualTo(e.getValue());
        }
        map.clear();
        assertThat(map.size()).isZero();
        assertThat(map.get(IpAddress.v4(1))).isNull();
    }
}
