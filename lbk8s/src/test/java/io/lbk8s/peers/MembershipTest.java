package io.lbk8s.peers;

import static io.lbk8s.peers.SimulatedSpeakers.MS;
import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.peers.Membership.Event;
import io.lbk8s.peers.PeerMessage.Opinion;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class MembershipTest {
    static final Membership.Settings SETTINGS =
            Membership.Settings.DEFAULTS; // 250 ms, holds 2 s doubling to 60 s within 5 min
    static final Duration LIMIT = Duration.ofMinutes(2);

    final SimulatedSpeakers cluster = new SimulatedSpeakers(SETTINGS, "node-1", "node-2", "node-3");

    @Test
    void speakersAreReadyOnceTheyHaveHeardEveryPeer() {
        assertThat(cluster.snapshot("node-1")).satisfies(s -> {
            assertThat(s.ready()).isFalse();
            assertThat(s.reason()).isEqualTo("starting: listening to its peers");
            assertThat(s.liveness("node-2")).isEqualTo(Liveness.NOT_HEARD);
        });
        cluster.run(Duration.ofMillis(100));
        for (String node : List.of("node-1", "node-2", "node-3")) {
            assertThat(cluster.snapshot(node).ready()).as(node).isTrue();
            assertThat(cluster.snapshot(node).isolated()).isFalse();
            assertThat(cluster.snapshot(node).peers().values()).as(node).allMatch(v -> v.liveness() == Liveness.ALIVE);
        }
    }

    @Test
    void aPeerNeverHeardIsLeftToTheApiAndDoesNotKeepTheOthersWaiting() {
        SimulatedSpeakers two = new SimulatedSpeakers(SETTINGS, "node-1", "node-2");
        two.kill("node-2");
        Duration settling = two.until(() -> two.ready("node-1"), LIMIT);
        assertThat(settling.toMillis()).isBetween(245L, 255L);
        assertThat(two.liveness("node-1", "node-2")).isEqualTo(Liveness.NOT_HEARD);
        assertThat(two.snapshot("node-1").isolated())
                .as("never heard is not cut off")
                .isFalse();
    }

    @Test
    void aSilentPeerIsSuspectedAtHalfTheDetectionTimeAndDeadAtIt() {
        cluster.run(Duration.ofSeconds(1));
        cluster.kill("node-3");
        Duration detection = cluster.until(() -> cluster.liveness("node-1", "node-3") == Liveness.DEAD, LIMIT);
        // its last heartbeat went out up to one interval before it died
        assertThat(detection.toMillis()).isBetween(200L, 255L);
        assertThat(cluster.liveness("node-2", "node-3")).isEqualTo(Liveness.DEAD);
        assertThat(cluster.events.get("node-1"))
                .filteredOn(e -> e instanceof Event.Suspected)
                .hasSize(1);
        assertThat(cluster.events.get("node-1"))
                .filteredOn(e -> e instanceof Event.Silent s && s.peer().equals("node-3"))
                .singleElement()
                .satisfies(e -> assertThat(((Event.Silent) e).silentNanos()).isBetween(250 * MS, 255 * MS));
        assertThat(cluster.ready("node-1")).isTrue();
        assertThat(cluster.ready("node-2")).isTrue();
        assertThat(cluster.snapshot("node-1").failedSilently("node-3")).isTrue();
    }

    @Test
    void aLeavingPeerIsDeadAtOnce() {
        cluster.run(Duration.ofSeconds(1));
        cluster.leave("node-2");
        assertThat(cluster.liveness("node-1", "node-2")).isEqualTo(Liveness.DEAD);
        assertThat(cluster.liveness("node-3", "node-2")).isEqualTo(Liveness.DEAD);
        assertThat(cluster.snapshot("node-1").failedSilently("node-2"))
                .as("it left: it did not fail")
                .isFalse();
        assertThat(cluster.snapshot("node-1").failedSilently("node-3")).isFalse();
        assertThat(cluster.nodes.get("node-1").drainEvents()).contains(new Event.Left("node-2"));
    }

    @Test
    void theSurvivorOfTwoNodesStaysACandidateAndSaysItIsCutOff() {
        SimulatedSpeakers two = new SimulatedSpeakers(SETTINGS, "node-1", "node-2");
        two.run(Duration.ofSeconds(1));
        two.kill("node-2");
        two.run(Duration.ofMillis(300));
        assertThat(two.snapshot("node-1")).satisfies(s -> {
            assertThat(s.ready()).isTrue();
            assertThat(s.isolated()).isTrue();
            assertThat(s.liveness("node-2")).isEqualTo(Liveness.DEAD);
        });
        assertThat(two.nodes
                        .get("node-1")
                        .heartbeat(PeerMessage.Kind.HEARTBEAT, 1, 1, 0, two.now)
                        .isolated())
                .isTrue();
    }

    @Test
    void aFrozenNodeThatResumesWaitsUntilItsPeersReadmitIt() {
        cluster.run(Duration.ofSeconds(1));
        cluster.freeze("node-1");
        cluster.run(Duration.ofSeconds(2));
        assertThat(cluster.liveness("node-2", "node-1")).isEqualTo(Liveness.DEAD);
        assertThat(cluster.snapshot("node-1").stalls()).isZero();
        cluster.resume("node-1");
        assertThat(cluster.snapshot("node-1").reason()).startsWith("resuming after a pause of 2000 ms");
        assertThat(cluster.snapshot("node-1").stalls())
                .as("what it announced is to be announced afresh")
                .isEqualTo(1);
        cluster.run(Duration.ofMillis(100));
        assertThat(cluster.snapshot("node-1").ready())
                .as("its peers hold it back")
                .isFalse();
        assertThat(cluster.snapshot("node-1").reason()).startsWith("held back by its peers after a failure");
        assertThat(cluster.liveness("node-2", "node-1")).isEqualTo(Liveness.HELD);
        assertThat(cluster.snapshot("node-2").peers().get("node-1").detail())
                .isEqualTo("rejoining after a failure: held back for 2000 ms");
        Duration held = cluster.until(() -> cluster.liveness("node-2", "node-1") == Liveness.ALIVE, LIMIT);
        assertThat(cluster.ready("node-1")).isTrue();
        assertThat(held.toMillis() + 100).isBetween(2000L, 2100L);
        assertThat(cluster.liveness("node-3", "node-1")).isEqualTo(Liveness.ALIVE);
    }

    @Test
    void aPauseIsNotBlamedOnThePeers() {
        cluster.run(Duration.ofSeconds(1));
        cluster.freeze("node-1");
        cluster.run(Duration.ofSeconds(5));
        cluster.resume("node-1");
        cluster.run(Duration.ofMillis(500));
        assertThat(cluster.events.get("node-1"))
                .noneMatch(e -> e instanceof Event.Silent || e instanceof Event.Suspected);
        assertThat(cluster.events.get("node-1")).contains(new Event.Stalled(5000 * MS));
        assertThat(cluster.liveness("node-1", "node-2"))
                .as("not held back: it never failed")
                .isEqualTo(Liveness.ALIVE);
    }

    @Test
    void aPauseShorterThanTheDetectionTimeCostsNoHold() {
        cluster.run(Duration.ofSeconds(1));
        cluster.freeze("node-1");
        cluster.run(Duration.ofMillis(150));
        cluster.resume("node-1");
        assertThat(cluster.ready("node-1")).as("settling again").isFalse();
        Duration back = cluster.until(() -> cluster.ready("node-1"), LIMIT);
        assertThat(back.toMillis()).isLessThanOrEqualTo(60);
        cluster.run(Duration.ofMillis(50)); // its next heartbeat says so
        assertThat(cluster.liveness("node-2", "node-1")).isEqualTo(Liveness.ALIVE);
        assertThat(cluster.events.get("node-2")).noneMatch(e -> e instanceof Event.Silent);
    }

    @Test
    void aNodeThatFlapsIsHeldBackLongerEachTime() {
        cluster.run(Duration.ofSeconds(1));
        long[] holds = new long[4];
        for (int i = 0; i < holds.length; i++) {
            cluster.kill("node-3");
            cluster.run(Duration.ofMillis(300));
            cluster.start("node-3");
            holds[i] = cluster.until(() -> cluster.liveness("node-1", "node-3") == Liveness.ALIVE, LIMIT)
                    .toMillis();
            assertThat(cluster.ready("node-3")).isTrue();
        }
        assertThat(holds[0]).isBetween(2000L, 2060L);
        assertThat(holds[1]).isBetween(4000L, 4060L);
        assertThat(holds[2]).isBetween(8000L, 8060L);
        assertThat(holds[3]).isBetween(16000L, 16060L);
        cluster.run(Duration.ofMinutes(6)); // the flap window forgets
        cluster.kill("node-3");
        cluster.run(Duration.ofMillis(300));
        cluster.start("node-3");
        assertThat(cluster.until(() -> cluster.liveness("node-1", "node-3") == Liveness.ALIVE, LIMIT)
                        .toMillis())
                .isBetween(2000L, 2060L);
    }

    @Test
    void holdsStopGrowingAtTheMaximum() {
        SimulatedSpeakers two = new SimulatedSpeakers(
                new Membership.Settings(
                        Duration.ofMillis(250), Duration.ofSeconds(1), Duration.ofSeconds(3), Duration.ofMinutes(5)),
                "node-1",
                "node-2");
        two.run(Duration.ofSeconds(1));
        long last = 0;
        for (int i = 0; i < 4; i++) {
            two.kill("node-2");
            two.run(Duration.ofMillis(300));
            two.start("node-2");
            last = two.until(() -> two.liveness("node-1", "node-2") == Liveness.ALIVE, LIMIT)
                    .toMillis();
        }
        assertThat(last).isBetween(3000L, 3060L);
    }

    @Test
    void aRestartFasterThanTheDetectionTimeCountsAsAFailure() {
        cluster.run(Duration.ofSeconds(1));
        cluster.kill("node-3");
        cluster.run(Duration.ofMillis(60));
        cluster.start("node-3");
        cluster.run(Duration.ofMillis(100));
        assertThat(cluster.events.get("node-1")).contains(new Event.Restarted("node-3"));
        assertThat(cluster.liveness("node-1", "node-3")).isEqualTo(Liveness.HELD);
        assertThat(cluster.ready("node-3")).isFalse();
    }

    @Test
    void aDeafNodeCannotEvictItsPeers() {
        cluster.run(Duration.ofSeconds(1));
        cluster.cut("node-1", "node-3");
        cluster.cut("node-2", "node-3");
        cluster.run(Duration.ofSeconds(1));
        assertThat(cluster.snapshot("node-3")).satisfies(s -> {
            assertThat(s.isolated()).isTrue();
            assertThat(s.liveness("node-1")).isEqualTo(Liveness.DEAD);
        });
        assertThat(cluster.ready("node-1")).isTrue();
        assertThat(cluster.ready("node-2")).isTrue();
        assertThat(cluster.liveness("node-1", "node-2")).isEqualTo(Liveness.ALIVE);
        assertThat(cluster.liveness("node-1", "node-3")).isEqualTo(Liveness.HELD);
        assertThat(cluster.snapshot("node-1").peers().get("node-3").detail()).isEqualTo("hears none of its peers");
    }

    @Test
    void aNodeItsPeersCannotHearStepsBackAndReturnsAfterTheHold() {
        cluster.run(Duration.ofSeconds(1));
        cluster.cut("node-1", "node-2");
        cluster.cut("node-1", "node-3");
        cluster.run(Duration.ofMillis(400));
        assertThat(cluster.liveness("node-2", "node-1")).isEqualTo(Liveness.DEAD);
        assertThat(cluster.snapshot("node-1").ready()).isFalse();
        assertThat(cluster.snapshot("node-1").reason()).isEqualTo("most of its peers do not hear it");
        cluster.heal();
        cluster.run(Duration.ofMillis(100));
        assertThat(cluster.ready("node-1")).isFalse();
        Duration held = cluster.until(() -> cluster.ready("node-1"), LIMIT);
        assertThat(held.toMillis() + 100).isBetween(2000L, 2100L);
    }

    @Test
    void oneDissentingPeerOfThreeDoesNotEvictANode() {
        cluster.run(Duration.ofSeconds(1));
        cluster.cut("node-1", "node-3");
        cluster.run(Duration.ofSeconds(1));
        assertThat(cluster.liveness("node-3", "node-1")).isEqualTo(Liveness.DEAD);
        assertThat(cluster.liveness("node-2", "node-1")).isEqualTo(Liveness.ALIVE);
        assertThat(cluster.ready("node-1")).isTrue();
    }

    @Test
    void heartbeatsReportEveryPeerHeardAndTheNodesOwnState() {
        SimulatedSpeakers two = new SimulatedSpeakers(SETTINGS, "node-1", "node-2", "node-3");
        two.kill("node-3");
        two.run(Duration.ofSeconds(1));
        PeerMessage message = two.nodes.get("node-1").heartbeat(PeerMessage.Kind.HEARTBEAT, 5, 6, 7, two.now);
        assertThat(message)
                .isEqualTo(new PeerMessage(
                        PeerMessage.Kind.HEARTBEAT,
                        "node-1",
                        5,
                        6,
                        7,
                        true,
                        false,
                        List.of(new PeerMessage.Report(PeerId.of("node-2"), Opinion.OK))));
    }

    @Test
    void messagesOfNodesThatAreNotPeersChangeNothing() {
        Membership membership = new Membership("node-1", SETTINGS, 0);
        membership.setPeers(List.of("node-1", "node-2"));
        membership.heard(new PeerMessage(PeerMessage.Kind.LEAVING, "node-9", 1, 1, 0, true, false, List.of()), 1);
        assertThat(membership.knows("node-9")).isFalse();
        assertThat(membership.knows("node-1")).as("not its own peer").isFalse();
        assertThat(membership.snapshot(1).peers().keySet()).containsExactly("node-2");
        assertThat(membership.drainEvents()).isEmpty();
    }
}
