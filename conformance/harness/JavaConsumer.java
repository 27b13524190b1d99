/*
 * One Java consumer (pulsar-client-original, the release on the classpath) that subscribes, receives and
 * acknowledges every message until nothing came for quiet_ms (or timeout_ms passed), recording each
 * client event as a line of JSON in the capture contract the Python harness writes
 * (fixtures/capture/schema.py: ts_ns, kind, client, url, uid, key, msg_id, redelivery_count, error).
 *
 * Run as a single source file (java JavaConsumer.java key=value ...), as Harness.java is:
 *   service_url topic subscription type(Exclusive|Shared|Failover|Key_Shared) name events
 *   quiet_ms timeout_ms start_seconds replicate(true|false)
 * Credentials come by environment, never argv: PULSAR_CONFORMANCE_HARNESS_AUTH_PLUGIN and _AUTH_PARAMS,
 * _TRUST_CERTS, _VERIFY_HOSTNAME (conformance/harness/java_process.py writes them).
 * stdout: "ready <ts>", then "drained <ts> <received>", then "done"; "error <why>" and exit 5 on failure.
 */

import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.api.ClientBuilder;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;
import org.apache.pulsar.client.api.SubscriptionInitialPosition;
import org.apache.pulsar.client.api.SubscriptionType;
import org.apache.pulsar.client.impl.BatchMessageIdImpl;
import org.apache.pulsar.client.impl.MessageIdImpl;

public class JavaConsumer {
    static final ConcurrentLinkedQueue<String> EVENTS = new ConcurrentLinkedQueue<>();

    static long nowNs() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    static String quote(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }

    static void event(String kind, String client, String url, String uid, String key, String msgId,
                      Integer redeliveries, String error) {
        EVENTS.add("{\"ts_ns\":" + nowNs() + ",\"kind\":" + quote(kind) + ",\"client\":" + quote(client)
                + ",\"url\":" + quote(url) + ",\"uid\":" + quote(uid) + ",\"key\":" + quote(key)
                + ",\"msg_id\":" + quote(msgId) + ",\"redelivery_count\":" + redeliveries
                + ",\"error\":" + quote(error) + "}");
    }

    static String format(MessageId id) {
        if (id instanceof MessageIdImpl m) {
            int batch = id instanceof BatchMessageIdImpl b ? b.getBatchIndex() : -1;
            return m.getLedgerId() + ":" + m.getEntryId() + ":" + m.getPartitionIndex() + ":" + batch;
        }
        return id == null ? null : id.toString();
    }

    static void say(String line) {
        synchronized (System.out) {
            System.out.println(line);
            System.out.flush();
        }
    }

    public static void main(String[] argv) {
        try {
            run(argv);
        } catch (Throwable e) {
            say("error " + e);
            Runtime.getRuntime().halt(5);
        }
    }

    static void run(String[] argv) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (String arg : argv) {
            int eq = arg.indexOf('=');
            a.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        String url = a.get("service_url");
        String name = a.get("name");
        ClientBuilder builder = PulsarClient.builder().serviceUrl(url).operationTimeout(10, TimeUnit.SECONDS);
        String plugin = System.getenv("PULSAR_CONFORMANCE_HARNESS_AUTH_PLUGIN");
        if (plugin != null && !plugin.isEmpty()) {
            builder.authentication(plugin, System.getenv("PULSAR_CONFORMANCE_HARNESS_AUTH_PARAMS"));
        }
        String trust = System.getenv("PULSAR_CONFORMANCE_HARNESS_TRUST_CERTS");
        if (trust != null && !trust.isEmpty()) {
            builder.tlsTrustCertsFilePath(trust).allowTlsInsecureConnection(false)
                    .enableTlsHostnameVerification("true".equals(System.getenv("PULSAR_CONFORMANCE_HARNESS_VERIFY_HOSTNAME")));
        }
        PulsarClient client = builder.build();
        long startDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Long.parseLong(a.getOrDefault("start_seconds", "30")));
        Consumer<byte[]> consumer = null;
        while (consumer == null) {
            CompletableFuture<Consumer<byte[]>> attempt = client.newConsumer()
                    .topic(a.get("topic"))
                    .subscriptionName(a.get("subscription"))
                    .subscriptionType(SubscriptionType.valueOf(a.get("type")))
                    .subscriptionInitialPosition(SubscriptionInitialPosition.Earliest)
                    .replicateSubscriptionState(Boolean.parseBoolean(a.getOrDefault("replicate", "false")))
                    .consumerName(name)
                    .receiverQueueSize(50)
                    .subscribeAsync();
            try {
                consumer = attempt.get(Math.max(1, startDeadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException e) {
                if (System.nanoTime() + TimeUnit.SECONDS.toNanos(1) >= startDeadline) {
                    throw e;
                }
                say("retry subscribe: " + e.getCause());
                Thread.sleep(1000);
            }
        }
        say("ready " + nowNs());
        long quietMs = Long.parseLong(a.getOrDefault("quiet_ms", "4000"));
        long end = System.currentTimeMillis() + Long.parseLong(a.getOrDefault("timeout_ms", "60000"));
        long last = System.currentTimeMillis();
        long received = 0;
        while (System.currentTimeMillis() < end && System.currentTimeMillis() - last < quietMs) {
            Message<byte[]> m;
            try {
                m = consumer.receive(500, TimeUnit.MILLISECONDS);
            } catch (PulsarClientException e) {
                event("consumer_error", name, url, null, null, null, null, e.toString());
                Thread.sleep(200);
                continue;
            }
            if (m == null) {
                continue;
            }
            last = System.currentTimeMillis();
            received++;
            String uid = m.getProperty("uid");
            String id = format(m.getMessageId());
            String key = m.hasKey() ? m.getKey() : null;
            event("receive", name, url, uid, key, id, m.getRedeliveryCount(), null);
            try {
                consumer.acknowledge(m.getMessageId());
                event("ack", name, url, uid, key, id, null, null);
            } catch (PulsarClientException e) {
                event("ack_error", name, url, uid, key, id, null, e.toString());
            }
        }
        say("drained " + nowNs() + " " + received);
        try (BufferedWriter out = Files.newBufferedWriter(Paths.get(a.get("events")), StandardCharsets.UTF_8)) {
            String line;
            while ((line = EVENTS.poll()) != null) {
                out.write(line);
                out.write('\n');
            }
        }
        try {
            client.closeAsync().get(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            say("close " + e);
        }
        say("done");
        Runtime.getRuntime().halt(0);
    }
}
