package kgroute;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;

/**
 * Starts Neo4j Community embedded with only the Bolt connector enabled
 * (no encryption, no auth) so kgroute's tests can talk to a real server
 * without Docker. Usage: {@code Neo4jServer DATA_DIR HOST PORT READY_FILE}.
 * Writes READY_FILE once the default database answers a query, then blocks
 * until the JVM is told to stop (SIGTERM), shutting the database down cleanly.
 */
public final class Neo4jServer {
    private Neo4jServer() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: Neo4jServer DATA_DIR HOST PORT READY_FILE");
            System.exit(2);
        }
        Path dataDir = Path.of(args[0]);
        String host = args[1];
        int port = Integer.parseInt(args[2]);
        Path readyFile = Path.of(args[3]);

        DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(dataDir)
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress(host, port))
                .setConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
                .setConfig(HttpConnector.enabled, false)
                .setConfig(HttpsConnector.enabled, false)
                .setConfig(GraphDatabaseSettings.auth_enabled, false)
                .setConfig(GraphDatabaseSettings.transaction_timeout, Duration.ofMinutes(10))
                // A test server: keep memory small and predictable on shared machines.
                .setConfig(GraphDatabaseSettings.pagecache_memory, 512L * 1024 * 1024)
                .build();

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("kgroute neo4j-server: shutting down");
            dbms.shutdown();
            stopped.countDown();
        }));

        GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        waitUntilAnswers(db);
        writeReady(readyFile, host, port);
        System.out.println("kgroute neo4j-server: ready, bolt://" + host + ":" + port + " data " + dataDir);
        stopped.await();
    }

    private static void waitUntilAnswers(GraphDatabaseService db) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (true) {
            try {
                if (db.isAvailable(1000)) {
                    db.executeTransactionally("RETURN 1");
                    return;
                }
            } catch (RuntimeException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("database did not become available within 3 minutes");
            }
            Thread.sleep(200);
        }
    }

    private static void writeReady(Path readyFile, String host, int port) throws IOException {
        Path tmp = readyFile.resolveSibling(readyFile.getFileName() + ".tmp");
        Files.writeString(tmp, "bolt://" + host + ":" + port + "\n");
        Files.move(tmp, readyFile, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }
}
