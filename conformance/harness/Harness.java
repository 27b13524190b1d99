/*
 * The Java client of the PIP-121 scenarios: one PulsarClient built on AutoClusterFailover or
 * ControlledClusterFailover, a producer and an Exclusive consumer through it, every client event
 * as one JSON line (java_client.py turns them into capture rows, format /2), and where the client
 * is attached as it changes. Run with the JDK's single-file source launcher:
 *
 *   java -cp <pulsar-client-original classpath> Harness.java key=value...
 *
 * stdout is the control channel: "attached <ts_ns> <url>" when the provider's URL changes (polled
 * every 5 ms, as the Python harness polls get_service_info), "ready <ts_ns>", "done". stdin: the
 * line "stop" ends the traffic (drain, close, exit 0); end of input (the driver died) or
 * max_seconds exits at once, so no JVM outlives its scenario. mode=drain is one plain consumer
 * draining a subscription (see drain()), for the scenarios that move a consumer. mode=traffic runs
 * a scenario's producers, consumers and readers on one service URL, each on a client of its own
 * (see traffic()), for PIP-188's migration scenarios.
 */
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pulsar.client.api.Authentication;
import org.apache.pulsar.client.api.AuthenticationFactory;
import org.apache.pulsar.client.api.AutoClusterFailoverBuilder;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.ClientBuilder;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;
import org.apache.pulsar.client.api.ServiceUrlProvider;
import org.apache.pulsar.client.api.SubscriptionInitialPosition;
import org.apache.pulsar.client.api.SubscriptionType;
import org.apache.pulsar.client.impl.AutoClusterFailover;
import org.apache.pulsar.client.impl.BatchMessageIdImpl;
import org.apache.pulsar.client.impl.ControlledClusterFailover;
import org.apache.pulsar.client.impl.MessageIdImpl;

public class Harness {
    static final ConcurrentLinkedQueue<String> EVENTS = new ConcurrentLinkedQueue<>();
    static final Object OUT = new Object();

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

    static void say(String line) {
        synchronized (OUT) {
            System.out.println(line);
            System.out.flush();
        }
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

    // the capture's send_err is only for a send that cannot have reached a broker
    // (fixtures/capture/outcomes.py); anything else may have been persisted
    static String failedKind(Throwable error) {
        Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                ? error.getCause() : error;
        if (cause instanceof PulsarClientException.AlreadyClosedException
                || cause instanceof PulsarClientException.ProducerQueueIsFullError
                || cause instanceof PulsarClientException.InvalidMessageException
                || cause instanceof PulsarClientException.TopicTerminatedException
                || cause instanceof PulsarClientException.NotAllowedException) {
            return "send_err";
        }
        return "send_unknown";
    }

    static void flushEvents(BufferedWriter out) throws IOException {
        String line;
        while ((line = EVENTS.poll()) != null) {
            out.write(line);
            out.write('\n');
        }
        out.flush();
    }

    public static void main(String[] argv) {
        try {
            run(argv);
        } catch (Throwable e) {
            // the client's own threads would keep a failed harness alive: say why and go
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
        long maxMs = Long.parseLong(a.getOrDefault("max_seconds", "300")) * 1000;
        ScheduledExecutorService timers = Executors.newScheduledThreadPool(2, r -> {
            Thread t = new Thread(r, "harness-timer");
            t.setDaemon(true);
            return t;
        });
        // nothing outlives the scenario, whatever the client does on close
        timers.schedule(() -> {
            say("timeout");
            Runtime.getRuntime().halt(3);
        }, maxMs, TimeUnit.MILLISECONDS);
        if ("drain".equals(a.get("mode"))) {
            drain(a);
            return;
        }
        if ("traffic".equals(a.get("mode"))) {
            new Traffic(a).run();
            return;
        }

        String primary = a.get("primary");
        int intervalMs = Integer.parseInt(a.get("interval_ms"));
        ServiceUrlProvider provider;
        if ("controlled".equals(a.get("mode"))) {
            provider = ControlledClusterFailover.builder()
                    .defaultServiceUrl(primary)
                    .urlProvider(a.get("provider"))
                    .checkInterval(intervalMs, TimeUnit.MILLISECONDS)
                    .build();
        } else {
            AutoClusterFailoverBuilder auto = AutoClusterFailover.builder()
                    .primary(primary)
                    .secondary(Arrays.asList(a.get("secondaries").split(" ")))  // a URL may hold commas (host list)
                    .checkInterval(intervalMs, TimeUnit.MILLISECONDS)
                    .failoverDelay(Long.parseLong(a.get("failover_delay_ms")), TimeUnit.MILLISECONDS)
                    .switchBackDelay(Long.parseLong(a.get("switch_back_delay_ms")), TimeUnit.MILLISECONDS);
            // a secondary whose credentials differ from the primary's: one "url TAB plugin TAB params" line each
            String secondaryAuth = System.getenv("PULSAR_CONFORMANCE_HARNESS_SECONDARY_AUTH");
            if (secondaryAuth != null && !secondaryAuth.isEmpty()) {
                Map<String, Authentication> byUrl = new HashMap<>();
                for (String line : secondaryAuth.split("\n")) {
                    String[] parts = line.split("\t", 3);
                    byUrl.put(parts[0], AuthenticationFactory.create(parts[1], parts[2]));
                }
                auto.secondaryAuthentication(byUrl);
            }
            provider = auto.build();
        }
        ClientBuilder builder = PulsarClient.builder()
                .serviceUrlProvider(provider)
                .operationTimeout(10, TimeUnit.SECONDS);
        PulsarClient client = withCredentials(builder).build();

        AtomicReference<String> attached = new AtomicReference<>(provider.getServiceUrl());
        say("attached " + nowNs() + " " + attached.get());
        timers.scheduleAtFixedRate(() -> {
            String now = provider.getServiceUrl();
            if (!now.equals(attached.get())) {
                attached.set(now);
                say("attached " + nowNs() + " " + now);
            }
        }, 5, 5, TimeUnit.MILLISECONDS);

        BufferedWriter events = Files.newBufferedWriter(Paths.get(a.get("events")), StandardCharsets.UTF_8);
        timers.scheduleAtFixedRate(() -> {
            try {
                flushEvents(events);
            } catch (IOException e) {
                say("error events: " + e);
            }
        }, 200, 200, TimeUnit.MILLISECONDS);

        // a lookup that cannot connect is retried past the operation timeout: bound the start
        long startSeconds = Long.parseLong(a.getOrDefault("start_seconds", "30"));
        String topic = a.get("topic");
        String producerName = a.get("producer");
        String consumerName = a.get("consumer");
        long startDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(startSeconds);
        Consumer<byte[]> consumer = untilStarted(startDeadline, "subscribe", () -> client.newConsumer()
                .topic(topic)
                .subscriptionName(a.get("subscription"))
                .subscriptionType(SubscriptionType.Exclusive)
                .subscriptionInitialPosition(SubscriptionInitialPosition.Earliest)
                .consumerName(consumerName)
                .receiverQueueSize(50)
                .subscribeAsync());
        Producer<byte[]> producer = untilStarted(startDeadline, "create the producer", () -> client.newProducer()
                .topic(topic)
                .enableBatching(false)
                .blockIfQueueFull(true)
                .sendTimeout(Integer.parseInt(a.getOrDefault("send_timeout_ms", "15000")), TimeUnit.MILLISECONDS)
                .createAsync());

        AtomicBoolean stopSending = new AtomicBoolean();
        AtomicBoolean stopReceiving = new AtomicBoolean();
        AtomicLong received = new AtomicLong();
        // what the drain waits for: every acknowledged send delivered (uids), not a quiet spell
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        Set<String> delivered = ConcurrentHashMap.newKeySet();
        Thread reader = new Thread(() -> {
            while (!stopReceiving.get()) {
                Message<byte[]> m;
                try {
                    m = consumer.receive(200, TimeUnit.MILLISECONDS);
                } catch (PulsarClientException e) {
                    event("consumer_error", consumerName, attached.get(), null, null, null, null, e.toString());
                    sleep(200);
                    continue;
                }
                if (m == null) {
                    continue;
                }
                String uid = m.getProperty("uid");
                String id = format(m.getMessageId());
                String key = m.hasKey() ? m.getKey() : null;
                event("receive", consumerName, attached.get(), uid, key, id, m.getRedeliveryCount(), null);
                received.incrementAndGet();
                if (uid != null) {
                    delivered.add(uid);
                }
                consumer.acknowledgeAsync(m.getMessageId()).whenComplete((ok, error) -> event(
                        error == null ? "ack" : "ack_error", consumerName, attached.get(), uid, key, id, null,
                        error == null ? null : error.toString()));
            }
        }, "reader");
        reader.setDaemon(true);
        reader.start();

        double rate = Double.parseDouble(a.getOrDefault("rate", "50"));
        ConcurrentLinkedQueue<CompletableFuture<MessageId>> pending = new ConcurrentLinkedQueue<>();
        Thread writer = pacedWriter(producer, producerName, rate, new byte[64], stopSending, pending, attached::get,
                acknowledged::add, "writer");
        writer.setDaemon(true);
        writer.start();
        say("ready " + nowNs());

        BufferedReader control = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = control.readLine()) != null && !line.trim().equals("stop")) {
            // only "stop" means anything
        }
        if (line == null) {
            flushEvents(events);
            Runtime.getRuntime().halt(4);
        }
        stopSending.set(true);
        writer.join(5000);
        long settle = System.currentTimeMillis() + Long.parseLong(a.getOrDefault("send_timeout_ms", "15000")) + 5000;
        for (CompletableFuture<MessageId> f : pending) {
            try {
                f.get(Math.max(1, settle - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                // its outcome is an event already (or it never completed: no row, as for Python)
            }
        }
        // A consumer that is reconnecting after a switch can be silent for longer than any quiet
        // spell, so stopping on quiet would call "never read" "lost": read until every acknowledged
        // send was delivered, bounded by drain_ms; what is still missing is looked for in the
        // clusters' subscription backlogs by the driver (observe.py) after this JVM ends.
        long drainEnd = System.currentTimeMillis() + Long.parseLong(a.getOrDefault("drain_ms", "45000"));
        while (System.currentTimeMillis() < drainEnd && !delivered.containsAll(acknowledged)) {
            sleep(250);
        }
        Set<String> missing = new HashSet<>(acknowledged);
        missing.removeAll(delivered);
        say("drained " + nowNs() + " " + missing.size() + " of " + acknowledged.size() + " acknowledged sends not delivered");
        stopReceiving.set(true);
        reader.join(2000);
        try {
            client.closeAsync().get(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            say("close " + e);
        }
        provider.close();
        flushEvents(events);
        events.close();
        say("done");
        Runtime.getRuntime().halt(0);
    }

    /**
     * Credentials come by environment, not argv, which any process may read: a token, OAuth2 client
     * credentials (the secret stays in its file) or a client certificate, as client.conf names them
     * (conformance/harness/java_process.py writes them), and the CA to trust.
     */
    static ClientBuilder withCredentials(ClientBuilder builder) throws Exception {
        String plugin = System.getenv("PULSAR_CONFORMANCE_HARNESS_AUTH_PLUGIN");
        if (plugin != null && !plugin.isEmpty()) {
            builder.authentication(plugin, System.getenv("PULSAR_CONFORMANCE_HARNESS_AUTH_PARAMS"));
        }
        String trust = System.getenv("PULSAR_CONFORMANCE_HARNESS_TRUST_CERTS");
        if (trust != null && !trust.isEmpty()) {
            builder.tlsTrustCertsFilePath(trust).allowTlsInsecureConnection(false)
                    .enableTlsHostnameVerification("true".equals(System.getenv("PULSAR_CONFORMANCE_HARNESS_VERIFY_HOSTNAME")));
        }
        return builder;
    }

    /**
     * mode=drain: one consumer on service_url (no failover) that subscribes (type, replicate), receives
     * and acknowledges every message until nothing came for quiet_ms or timeout_ms passed, then writes
     * its events and says "drained <ts_ns> <received>", "done". A scenario that moves a consumer (tenant
     * migration's switch to B) judges the Java client with it (conformance/harness/java_consumer.py).
     */
    static void drain(Map<String, String> a) throws Exception {
        String url = a.get("service_url");
        String name = a.get("name");
        PulsarClient client = withCredentials(PulsarClient.builder().serviceUrl(url)
                .operationTimeout(10, TimeUnit.SECONDS)).build();
        long startDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Long.parseLong(a.getOrDefault("start_seconds", "30")));
        Consumer<byte[]> consumer = untilStarted(startDeadline, "subscribe", () -> client.newConsumer()
                .topic(a.get("topic"))
                .subscriptionName(a.get("subscription"))
                .subscriptionType(SubscriptionType.valueOf(a.get("type")))
                .subscriptionInitialPosition(SubscriptionInitialPosition.Earliest)
                .replicateSubscriptionState(Boolean.parseBoolean(a.getOrDefault("replicate", "false")))
                .consumerName(name)
                .receiverQueueSize(50)
                .subscribeAsync());
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
                sleep(200);
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
        try (BufferedWriter events = Files.newBufferedWriter(Paths.get(a.get("events")), StandardCharsets.UTF_8)) {
            flushEvents(events);
        }
        try {
            client.closeAsync().get(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            say("close " + e);
        }
        say("done");
        Runtime.getRuntime().halt(0);
    }

    static Map<String, String> fields(String line) {
        Map<String, String> f = new HashMap<>();
        for (String part : line.trim().split("\\s+")) {
            int eq = part.indexOf('=');
            if (eq > 0) {
                f.put(part.substring(0, eq), part.substring(eq + 1));
            }
        }
        return f;
    }

    /**
     * mode=traffic: the producers, consumers and readers of a scenario on service_url, each with a
     * client of its own (one handle's redirect cannot disturb another's, as in the Python traffic,
     * conformance/harness/traffic.py), from the spec file's lines
     *   producer name=N topic=T rate=R
     *   consumer name=N topic=T subscription=S type=Exclusive|Shared|Failover|KeyShared delay_ms=D latest=false
     *   reader name=N topic=T subscription=S
     * Each created handle is said as "attached <name> <ts_ns>", one the client could not create in
     * create_ms as "refused <name> <ts_ns> <error>"; then "ready <ts_ns>". stdin: "add <spec line>"
     * creates one more (the Python side waits for its answer), "stop [quiet_ms=Q drain_ms=D]" stops sending, waits for the
     * pending sends ("flushed"), reads until no delivery came for quiet_ms (at most drain_ms), closes
     * every client, writes the events, says "received <name> <n>" per handle and "done".
     * The clients follow a TopicMigrated redirect by themselves: nothing here knows of green.
     */
    static final class Traffic {
        final Map<String, String> a;
        final String url;
        final long createMs;
        final int sendTimeoutMs;
        final AtomicBoolean stopSending = new AtomicBoolean();
        final AtomicBoolean stopReceiving = new AtomicBoolean();
        final AtomicLong lastDelivery = new AtomicLong(System.currentTimeMillis());
        final java.util.List<PulsarClient> clients = new java.util.concurrent.CopyOnWriteArrayList<>();
        final java.util.List<Thread> producers = new java.util.concurrent.CopyOnWriteArrayList<>();
        final java.util.List<Thread> receivers = new java.util.concurrent.CopyOnWriteArrayList<>();
        final ConcurrentLinkedQueue<CompletableFuture<MessageId>> pending = new ConcurrentLinkedQueue<>();
        final Map<String, AtomicLong> received = new java.util.concurrent.ConcurrentSkipListMap<>();

        Traffic(Map<String, String> a) {
            this.a = a;
            this.url = a.get("service_url");
            this.createMs = Long.parseLong(a.getOrDefault("create_ms", "30000"));
            this.sendTimeoutMs = Integer.parseInt(a.getOrDefault("send_timeout_ms", "15000"));
        }

        void run() throws Exception {
            BufferedWriter events = Files.newBufferedWriter(Paths.get(a.get("events")), StandardCharsets.UTF_8);
            ScheduledExecutorService flusher = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "harness-events");
                t.setDaemon(true);
                return t;
            });
            // events reach the file as the run goes: a JVM killed at its deadline leaves them behind
            flusher.scheduleAtFixedRate(() -> {
                try {
                    synchronized (events) {
                        flushEvents(events);
                    }
                } catch (IOException e) {
                    say("error events: " + e);
                }
            }, 200, 200, TimeUnit.MILLISECONDS);
            for (String line : Files.readAllLines(Paths.get(a.get("spec")), StandardCharsets.UTF_8)) {
                if (!line.isBlank()) {
                    add(line);
                }
            }
            say("ready " + nowNs());
            BufferedReader control = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = control.readLine()) != null && !line.trim().startsWith("stop")) {
                if (line.startsWith("add ")) {
                    add(line.substring(4));
                }
            }
            if (line == null) {  // the driver died: leave at once, with what was recorded
                synchronized (events) {
                    flushEvents(events);
                }
                Runtime.getRuntime().halt(4);
            }
            stopSending.set(true);
            for (Thread t : producers) {
                t.join(5000);
            }
            long settle = System.currentTimeMillis() + sendTimeoutMs + 5000;
            for (CompletableFuture<MessageId> f : pending) {
                try {
                    f.get(Math.max(1, settle - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
                } catch (Exception e) {
                    // its outcome is an event already (or it never completed: no row, as for Python)
                }
            }
            say("flushed " + nowNs());
            // as the Python traffic drains: until no delivery came for quiet_ms, at most drain_ms
            // ("stop quiet_ms=Q drain_ms=D" says them; the arguments' otherwise)
            Map<String, String> stop = fields(line.trim().substring(4));
            long quietMs = Long.parseLong(stop.getOrDefault("quiet_ms", a.getOrDefault("quiet_ms", "2500")));
            long drainEnd = System.currentTimeMillis()
                    + Long.parseLong(stop.getOrDefault("drain_ms", a.getOrDefault("drain_ms", "40000")));
            lastDelivery.set(System.currentTimeMillis());
            while (System.currentTimeMillis() < drainEnd && System.currentTimeMillis() - lastDelivery.get() < quietMs) {
                sleep(250);
            }
            stopReceiving.set(true);
            for (Thread t : receivers) {
                t.join(5000);
            }
            java.util.List<CompletableFuture<Void>> closing = new java.util.ArrayList<>();
            for (PulsarClient c : clients) {
                closing.add(c.closeAsync());
            }
            try {
                CompletableFuture.allOf(closing.toArray(new CompletableFuture[0])).get(20, TimeUnit.SECONDS);
            } catch (Exception e) {
                say("close " + e);
            }
            flusher.shutdown();
            synchronized (events) {
                flushEvents(events);
                events.close();
            }
            for (Map.Entry<String, AtomicLong> e : received.entrySet()) {
                say("received " + e.getKey() + " " + e.getValue().get());
            }
            say("done " + nowNs());
            Runtime.getRuntime().halt(0);
        }

        /** One handle of a spec line, on a client of its own; said as attached or refused. */
        void add(String line) {
            String[] words = line.trim().split("\\s+", 2);
            Map<String, String> f = fields(words.length > 1 ? words[1] : "");
            String name = f.get("name");
            PulsarClient client = null;
            try {
                client = withCredentials(PulsarClient.builder().serviceUrl(url)
                        .operationTimeout(10, TimeUnit.SECONDS)).build();
                clients.add(client);
                switch (words[0]) {
                    case "producer" -> startProducer(client, f);
                    case "consumer" -> startConsumer(client, f);
                    case "reader" -> startReader(client, f);
                    default -> throw new IllegalArgumentException("no such handle kind: " + words[0]);
                }
                say("attached " + name + " " + nowNs());
            } catch (Exception e) {
                Throwable cause = e instanceof java.util.concurrent.ExecutionException && e.getCause() != null
                        ? e.getCause() : e;
                String why = e instanceof java.util.concurrent.TimeoutException
                        ? "TimeoutException: not created within " + createMs + " ms" : cause.toString();
                say("refused " + name + " " + nowNs() + " " + why.replace('\n', ' '));
                if (client != null) {
                    client.closeAsync();  // a creation that completes later must not leave a handle nobody reads
                }
            }
        }

        void startProducer(PulsarClient client, Map<String, String> f) throws Exception {
            String name = f.get("name");
            Producer<byte[]> producer = client.newProducer()
                    .topic(f.get("topic"))
                    .producerName(name)
                    .enableBatching(false)
                    .blockIfQueueFull(true)
                    .maxPendingMessages(500)
                    .sendTimeout(sendTimeoutMs, TimeUnit.MILLISECONDS)
                    .createAsync().get(createMs, TimeUnit.MILLISECONDS);
            double rate = Double.parseDouble(f.getOrDefault("rate", "60"));
            byte[] payload = new byte[64];
            Arrays.fill(payload, (byte) 'm');
            Thread writer = pacedWriter(producer, name, rate, payload, stopSending, pending, () -> url, null, name);
            writer.setDaemon(true);
            producers.add(writer);
            writer.start();
        }

        void startConsumer(PulsarClient client, Map<String, String> f) throws Exception {
            String name = f.get("name");
            String type = f.get("type");
            Consumer<byte[]> consumer = client.newConsumer()
                    .topic(f.get("topic"))
                    .subscriptionName(f.get("subscription"))
                    // the suite's names are pulsar.ConsumerType's (KeyShared), Java's enum says Key_Shared
                    .subscriptionType(SubscriptionType.valueOf("KeyShared".equals(type) ? "Key_Shared" : type))
                    .subscriptionInitialPosition(Boolean.parseBoolean(f.getOrDefault("latest", "false"))
                            ? SubscriptionInitialPosition.Latest : SubscriptionInitialPosition.Earliest)
                    .consumerName(name)
                    .receiverQueueSize(50)
                    .subscribeAsync().get(createMs, TimeUnit.MILLISECONDS);
            long delayMs = Long.parseLong(f.getOrDefault("delay_ms", "0"));
            AtomicLong count = received.computeIfAbsent(name, k -> new AtomicLong());
            loop(name, () -> consumer.receive(200, TimeUnit.MILLISECONDS), m -> {
                count.incrementAndGet();
                // slow only while producing: a backlog at the trigger, none left unread at the end
                if (delayMs > 0 && !stopSending.get()) {
                    sleep(delayMs);
                }
                String id = format(m.getMessageId());
                try {
                    consumer.acknowledge(m.getMessageId());
                    event("ack", name, url, m.getProperty("uid"), m.hasKey() ? m.getKey() : null, id, null, null);
                } catch (PulsarClientException e) {
                    event("ack_error", name, url, m.getProperty("uid"), null, id, null, e.toString());
                }
            });
        }

        void startReader(PulsarClient client, Map<String, String> f) throws Exception {
            String name = f.get("name");
            org.apache.pulsar.client.api.Reader<byte[]> reader = client.newReader()
                    .topic(f.get("topic"))
                    .subscriptionName(f.get("subscription"))  // its (non-durable) subscription, named for the rows
                    .startMessageId(MessageId.earliest)
                    .readerName(name)
                    .receiverQueueSize(50)
                    .createAsync().get(createMs, TimeUnit.MILLISECONDS);
            AtomicLong count = received.computeIfAbsent(name, k -> new AtomicLong());
            loop(name, () -> reader.readNext(200, TimeUnit.MILLISECONDS), m -> count.incrementAndGet());
        }

        interface Next {
            Message<byte[]> get() throws PulsarClientException;
        }

        /** A receiving thread: each delivery an event (before ``then``), errors as events, until stopped. */
        void loop(String name, Next next, java.util.function.Consumer<Message<byte[]>> then) {
            Thread t = new Thread(() -> {
                while (!stopReceiving.get()) {
                    Message<byte[]> m;
                    try {
                        m = next.get();
                    } catch (PulsarClientException e) {
                        event("consumer_error", name, url, null, null, null, null, e.toString());
                        sleep(200);
                        continue;
                    }
                    if (m == null) {
                        continue;
                    }
                    lastDelivery.set(System.currentTimeMillis());
                    event("receive", name, url, m.getProperty("uid"), m.hasKey() ? m.getKey() : null,
                            format(m.getMessageId()), m.getRedeliveryCount(), null);
                    then.accept(m);
                }
            }, name);
            t.setDaemon(true);
            receivers.add(t);
            t.start();
        }
    }

    /**
     * A producer's paced writer thread (not started): one message every 1/rate s until stopSending, key k0..k7 in
     * turn and the property uid=name/seq, each send's outcome an event under the URL url says at that moment;
     * onAcked (or null) hears each acknowledged uid. The failover client's producer and mode=traffic's
     * producers write the same way, so their captures read alike.
     */
    static Thread pacedWriter(Producer<byte[]> producer, String name, double rate, byte[] payload,
            AtomicBoolean stopSending, ConcurrentLinkedQueue<CompletableFuture<MessageId>> pending,
            java.util.function.Supplier<String> url, java.util.function.Consumer<String> onAcked, String threadName) {
        return new Thread(() -> {
            long began = System.nanoTime();
            long seq = 0;
            while (!stopSending.get()) {
                seq++;
                String uid = name + "/" + seq;
                String key = "k" + ((seq - 1) % 8);
                try {
                    CompletableFuture<MessageId> sent = producer.newMessage().key(key).property("uid", uid)
                            .value(payload).sendAsync();
                    pending.add(sent);
                    sent.whenComplete((id, error) -> {
                        if (error == null && onAcked != null) {
                            onAcked.accept(uid);
                        }
                        event(error == null ? "send_ok" : failedKind(error), name, url.get(), uid, key,
                                error == null ? format(id) : null, null, error == null ? null : error.toString());
                    });
                } catch (RuntimeException e) {
                    event(failedKind(e), name, url.get(), uid, key, null, null, e.toString());
                }
                long next = began + (long) (seq * 1e9 / rate);
                sleep(Math.max(0, (next - System.nanoTime()) / 1_000_000));
                pending.removeIf(CompletableFuture::isDone);
            }
        }, threadName);
    }

    /**
     * A subscribe or producer creation, tried again until the start deadline: on a cluster of several
     * brokers just started, a topic can wait for its namespace's bundles to settle (the broker's own
     * reader of __change_events is told "not served by this instance" for 20 s and more), and one
     * attempt ends at the client's operation timeout (10 s). The scenario judges failover, not that.
     */
    static <T> T untilStarted(long deadlineNs, String what, java.util.function.Supplier<CompletableFuture<T>> attempt)
            throws Exception {
        while (true) {
            try {
                return attempt.get().get(Math.max(1, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                if (System.nanoTime() + TimeUnit.SECONDS.toNanos(1) >= deadlineNs) {
                    throw e;
                }
                say("retry " + what + ": " + e.getCause());
                sleep(1000);
            }
        }
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
