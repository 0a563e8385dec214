package io.lbk8s.net.frame;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lbk8s.address.IpAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MacAddressTest {

    @Test
    void parsesAndPrintsLowerCaseColonForm() {
        MacAddress mac = MacAddress.parse("02:AB:cd:00:00:01");
        assertThat(mac.bits()).isEqualTo(0x02ab_cd00_0001L);
        assertThat(mac).hasToString("02:ab:cd:00:00:01");
        assertThat(mac.bytes()).containsExactly(0x02, 0xab, 0xcd, 0, 0, 1);
        assertThat(MacAddress.ofBytes(new byte[] {9, 2, (byte) 0xab, (byte) 0xcd, 0, 0, 1}, 1))
                .isEqualTo(mac);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "02:00:00:00:00",
                "02:00:00:00:00:00:00",
                "2:00:00:00:00:01",
                "02:00:00:00:00:0g",
                "020000000001"
            })
    void refusesMalformedText(String text) {
        assertThatThrownBy(() -> MacAddress.parse(text)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void constants() {
        assertThat(MacAddress.BROADCAST).hasToString("ff:ff:ff:ff:ff:ff");
        assertThat(MacAddress.BROADCAST.isBroadcast()).isTrue();
        assertThat(MacAddress.ZERO).hasToString("00:00:00:00:00:00");
        assertThat(MacAddress.ZERO.isBroadcast()).isFalse();
        assertThat(MacAddress.ALL_NODES.isMulticast()).isTrue();
        assertThatThrownBy(() -> new MacAddress(1L << 48)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void solicitedNodeMulticastTakesTheLow24Bits() {
        IpAddress vip = IpAddress.parse("fd99::12:3456:789a").orElseThrow();
        assertThat(MacAddress.solicitedNodeMulticast(vip)).hasToString("33:33:ff:56:78:9a");
        assertThat(MacAddress.solicitedNodeGroup(vip)).hasToString("ff02::1:ff56:789a");
        assertThatThrownBy(() -> MacAddress.solicitedNodeMulticast(
                        IpAddress.parse("10.0.0.1").orElseThrow()))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
