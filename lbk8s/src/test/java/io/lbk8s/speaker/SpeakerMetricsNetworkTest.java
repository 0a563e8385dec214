package io.lbk8s.speaker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lbk8s.address.IpAddress;
import io.lbk8s.net.AddressCounters;
import io.lbk8s.net.InterfaceResponder;
import io.lbk8s.net.L2Listener;
import io.lbk8s.net.ResponderOptions;
import io.lbk8s.net.bpf.BpfProgram;
import io.lbk8s.net.frame.ArpPacket;
import io.lbk8s.net.frame.MacAddress;
import io.lbk8s.net.link.LinkInfo;
import io.lbk8s.net.link.Links;
import io.lbk8s.net.link.PacketSocket;
import io.lbk8s.net.link.RootRequired;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Requests the kernel drops because the responder's receive queue is full show in the speaker's metrics, as the
 * Prometheus endpoint serves them. On loopback: the responder answers there, and nothing leaves the machine.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SpeakerMetricsNetworkTest {

    private static final IpAddress ANNOUNCED = IpAddress.parse("198.18.250.7").orElseThrow();
    private static final IpAddress ASKING = IpAddress.parse("198.18.250.1").orElseThrow();
    private static final MacAddress ASKING_MAC = MacAddress.parse("02:00:00:00:fa:01");
    private static final Pattern DROPPED =
            Pattern.compile("lbk8s_speaker_requests_dropped_total\\{interface=\"lo\",protocol=\"arp\"} (\\S+)");

    @Test
    void requestsDroppedForAFullReceiveQueueAreCounted() throws Exception {
        RootRequired.check();
        LinkInfo lo = Links.byName("lo").orElseThrow();
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        SpeakerMetrics metrics = new SpeakerMetrics(registry, "node-a");
        CountDownLatch flooded = new CountDownLatch(1);
        // The first answer holds the receive thread until the flood is sent, so the requests queue up behind it.
        L2Listener holdingTheFirstAnswer = new L2Listener() {
            @Override
            public AddressCounters counters(String iface, IpAddress ip) {
                AddressCounters counters = metrics.counters(iface, ip);
                return count -> {
                    try {
                        flooded.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    counters.answered(count);
                };
            }

            @Override
            public void gratuitousSent(String iface, IpAddress ip) {
                metrics.gratuitousSent(iface, ip);
            }

            @Override
            public void received(String iface, int etherType, PacketSocket.Stats counted) {
                metrics.received(iface, etherType, counted);
            }
        };
        ResponderOptions options = ResponderOptions.DEFAULTS
                .withIpv6(false)
                .withArpInKernel(false)
                .withReceiveBufferBytes(1); // the kernel raises this to its minimum, a few frames
        assertThat(scrapedDrops(registry)).as("no metric before any drop").isNull();
        try (InterfaceResponder responder = InterfaceResponder.start(lo, holdingTheFirstAnswer, options);
                PacketSocket asker =
                        PacketSocket.open(lo, ArpPacket.ETHERTYPE, BpfProgram.rejectAll(), Duration.ofMillis(100));
                Arena arena = Arena.ofConfined()) {
            responder.announce(List.of(ANNOUNCED));
            MemorySegment request = arena.allocate(64, 16);
            int length = ArpPacket.encodeRequest(request, ASKING_MAC, ASKING, ANNOUNCED);
            for (int i = 0; i < 300; i++) {
                asker.send(request, length);
            }
            flooded.countDown();

            await().atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(100))
                    .untilAsserted(
                            () -> assertThat(scrapedDrops(registry)).isNotNull().isPositive());
            assertThat(scrapedDrops(registry)).isLessThan(300);
        }
    }

    /** The counter as the Prometheus endpoint shows it, or null when it is not there. */
    private static Double scrapedDrops(PrometheusMeterRegistry registry) {
        Matcher m = DROPPED.matcher(registry.scrape());
        return m.find() ? Double.parseDouble(m.group(1)) : null;
    }
}
