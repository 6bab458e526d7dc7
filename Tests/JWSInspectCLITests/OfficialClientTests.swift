import AppStoreTestData
import Foundation
import JWSInspectCore
import TestPKI
import TestSupport
import Testing

/// Apple's own App Store Server API client (app-store-server-library, Python) against the mock:
/// the mock must accept Apple's tokens and answer bodies Apple's models and verifier take
/// (scripts/difftest/official_client.py says what is checked). The library is installed by
/// `make difftest`, which runs this with JWSINSPECT_DIFFTEST_PYTHON set to its Python.
@Suite(
    "the mock API answers Apple's own client", .timeLimit(.minutes(10)),
    .enabled(if: ProcessInfo.processInfo.environment["JWSINSPECT_DIFFTEST_PYTHON"] != nil))
struct OfficialClientTests {
    @Test("every endpoint fetch uses, through Apple's client, models and verifier")
    func officialClient() throws {
        let python = try #require(ProcessInfo.processInfo.environment["JWSINSPECT_DIFFTEST_PYTHON"])
        // Apple's client signs with this machine's clock: the mock keeps the same, and its leaf
        // is valid around it.
        let now = Date()
        let chain = AppleShapedChain(
            leafNotBefore: now.addingTimeInterval(-400 * 86_400), leafNotAfter: now.addingTimeInterval(400 * 86_400))
        let key = MockAPIKey()
        let server = try MockAppStoreServer(
            environment: "Production", credentials: key.credentials, now: now, chain: chain)
        defer { server.stop() }
        // The seeded notifications are of 2025, beyond the 180 days history reaches back from now.
        for (index, type) in ["SUBSCRIBED", "DID_RENEW", "REFUND"].enumerated() {
            let sent = now.addingTimeInterval(Double(index - 3) * 86_400)
            server.addNotification(
                MockNotification(
                    notificationType: type, subtype: nil, notificationUUID: UUID().uuidString.lowercased(),
                    signedDate: sent, transactionId: MockAppStoreServer.Seed.subscriptionOriginal,
                    sendAttempts: [.init(date: sent, result: index == 1 ? "TIMED_OUT" : "SUCCESS")]))
        }
        // What the read-only endpoints answer: a completed mass extension, a default message,
        // the realtime URL and a failed performance test (the image and message lists are
        // Apple's own fixtures).
        server.addMassExtension(
            product: "pro.monthly", requestIdentifier: "2c5a0f0e-6b7d-4f3e-9a1b-0c2d3e4f5a6b",
            completeDate: now.addingTimeInterval(-3_600), succeeded: 1_204, failed: 3)
        server.setDefaultMessage(
            product: "pro.monthly", locale: "en-US", messageIdentifier: "3f2b1c0d-4e5f-4a6b-8c7d-9e0f1a2b3c4d")
        server.setRealtimeURL("https://example.com/retention")
        server.addPerformanceTest(
            requestID: "7c8d9e0f",
            result: MockAppStoreServer.failedPerformanceTest)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("official-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyPath = try key.writeKeyFile(in: directory)
        let rootPath = directory.appendingPathComponent("root.der").path
        try Data(chain.root.der).write(to: URL(fileURLWithPath: rootPath))

        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/difftest/official_client.py").path
        let result = try ChildProcess.run(
            python,
            [
                script, server.baseURL, keyPath, key.keyID, key.issuerID, key.bundleID, rootPath,
                String(TestPayloads.appAppleId),
            ])
        let printed = Data(result.stdout)
        #expect(result.status == 0, "\(result.stderrText)")
        let counts = try #require(try JSONSerialization.jsonObject(with: printed) as? [String: Int])
        #expect(counts["history pages"] == 1 && counts["notification history pages"] == 1)
        #expect((counts["transactions verified"] ?? 0) >= 12)
        #expect(counts["renewal infos verified"] == 2 && counts["app transactions verified"] == 1)
        #expect(counts["notifications verified"] == 4 && counts["test notifications verified"] == 1, "\(counts)")
        #expect(counts["errors parsed"] == 1)
        #expect(counts["extension statuses parsed"] == 1 && counts["retention reads parsed"] == 5, "\(counts)")
        // Every token Apple's client made was accepted as Apple would.
        #expect(server.requests.allSatisfy { $0.tokenVerdict == .accepted })
    }
}
