import AppStoreTestData
import Foundation
import JWSInspectCore
import TestPKI
import Testing

/// Issue 3 through the executable: nested tokens, API responses, readable fields,
/// backend expectations and Xcode tokens.
@Suite(.timeLimit(.minutes(10))) struct AppStoreKnowledgeTests {
    static let pki = ExecutableTests.pki
    static let root = ExecutableTests.rootFile
    static let account = "7e3fb20b-4cdb-47cc-936d-99d65f608138"

    static func transaction(_ extra: String = "") -> String {
        #"{"transactionId":"1","bundleId":"b","productId":"p","type":"Auto-Renewable Subscription","signedDate":1735689600000,"environment":"Sandbox","expiresDate":1738281600000\#(extra)}"#
    }

    static func notification(transaction: String, renewal: String) -> String {
        #"{"notificationType":"DID_RENEW","signedDate":1735689600000,"data":{"bundleId":"b","environment":"Sandbox","signedTransactionInfo":"\#(transaction)","signedRenewalInfo":"\#(renewal)"}}"#
    }

    static func tamper(_ token: String) -> String {
        var parts = token.split(separator: ".").map(String.init)
        parts[1] = TestPKI.base64URL(Array(transaction(#","price":1"#).utf8))
        return parts.joined(separator: ".")
    }

    @Test func nestedResultsAreKeyedByPathAndFailTheParent() throws {
        let good = Self.pki.sign(
            payloadJSON: Self.notification(
                transaction: Self.pki.sign(payloadJSON: Self.transaction()),
                renewal: Self.pki.sign(payloadJSON: TestPayloads.renewalInfo())))
        let result = try CLI.run(["--format", "jsonl", "--root", Self.root, good])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try result.jsonObjects().first)
        let nested = try #require(object["nested"] as? [String: Any])
        #expect(Set(nested.keys) == ["data.signedTransactionInfo", "data.signedRenewalInfo"])
        let transaction = try #require(nested["data.signedTransactionInfo"] as? [String: Any])
        #expect(transaction["type"] as? String == "transaction")
        #expect(transaction["status"] as? String == "valid")
        #expect((transaction["checks"] as? [Any])?.count == 7)
        #expect((transaction["payload"] as? [String: Any])?["transactionId"] as? String == "1")

        let bad = Self.pki.sign(
            payloadJSON: Self.notification(
                transaction: Self.tamper(Self.pki.sign(payloadJSON: Self.transaction())),
                renewal: Self.pki.sign(payloadJSON: TestPayloads.renewalInfo())))
        let failed = try CLI.run(["--root", Self.root, bad])
        #expect(failed.status == 1)
        // The headline names the nested token, and that the notification's own signature verified.
        #expect(
            failed.stdout.hasPrefix(
                "INVALID (invalid-signature) — notification with its own signature verified · its "
                    + "data.signedTransactionInfo NOT proven authentic  "))
        let reason = failed.stdout.split(separator: "\n")[1]
        #expect(reason.contains("nested data.signedTransactionInfo failed: signature: "))
        #expect(reason.hasSuffix("; the notification's own signature and chain verified"))
        // A notification whose own signature fails says nothing of the kind.
        let forged = Self.tamper(bad)
        let outer = try CLI.run(["--root", Self.root, forged])
        #expect(!outer.stdout.contains("own signature"))
        #expect(failed.stdout.contains("NESTED data.signedTransactionInfo"))
    }

    /// Every JWS `NotificationBody.nestedTokens` lists is verified, keyed in JSON, given its own
    /// table section, marked in the payload and named in the help: all from that one list.
    @Test func everyListedNestedTokenIsVerifiedAndShown() throws {
        let payloads: [PayloadKind: String] = [
            .transaction: Self.transaction(), .renewalInfo: TestPayloads.renewalInfo(),
            .appTransaction: TestPayloads.appTransaction(),
        ]
        let bodies = try NotificationBody.all.filter { !$0.nestedTokens.isEmpty }.map { body in
            let members = try body.nestedTokens.map { token in
                let payload = try #require(payloads[token.kind], "no test payload for \(token.path)")
                return #""\#(token.member)":"\#(Self.pki.sign(payloadJSON: payload))""#
            }
            return #""\#(body.name)":{"bundleId":"b","environment":"Sandbox",\#(members.joined(separator: ","))}"#
        }
        let token = Self.pki.sign(
            payloadJSON: #"{"notificationType":"TEST","signedDate":1735689600000,\#(bodies.joined(separator: ","))}"#)
        let paths = NotificationBody.nestedTokens.map(\.path)

        let json = InProcess.run(["--format", "jsonl", "--root", Self.root, token])
        #expect(json.status == 0, "\(json.stdout)\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let nested = try #require(object["nested"] as? [String: [String: Any]])
        #expect(Set(nested.keys) == Set(paths))
        let display = try #require(object["display"] as? [String: Any])
        for token in NotificationBody.nestedTokens {
            #expect(nested[token.path]?["status"] as? String == "valid", "\(token.path)")
            #expect(nested[token.path]?["type"] as? String == token.kind.rawValue, "\(token.path)")
            let shown = (display[token.body] as? [String: Any])?[token.member] as? String
            #expect(shown?.hasSuffix("(decoded and verified as nested)") == true, "\(token.path)")
        }

        let table = InProcess.run(["--root", Self.root, token])
        #expect(table.status == 0)
        let sections = table.stdout.split(separator: "\n").filter { $0.hasPrefix("NESTED ") }
        #expect(sections == paths.map { "NESTED \($0)"[...] })
        #expect(table.stdout.contains("nested \(paths.joined(separator: " and ")) too"))

        let help = InProcess.run(["--help"]).stdout.replacingOccurrences(of: "\n", with: " ")
        #expect(help.contains("JWS nested in a notification (\(paths.joined(separator: ", ")))"))
    }

    @Test func realSubscribedNotificationNestsVerifiedTokens() throws {
        let sample = CLI.packageRoot.appendingPathComponent("Samples/notification-subscribed-sandbox-2025.jws").path
        let result = try CLI.run(["--format", "jsonl", sample])
        #expect(result.status == 0)
        let object = try #require(try result.jsonObjects().first)
        let nested = try #require(object["nested"] as? [String: [String: Any]])
        #expect(nested["data.signedTransactionInfo"]?["status"] as? String == "valid")
        #expect(nested["data.signedRenewalInfo"]?["status"] as? String == "valid")
        let display = try #require(nested["data.signedTransactionInfo"]?["display"] as? [String: Any])
        #expect(display["price"] as? String == "1.99 AUD")
        #expect(display["storefront"] as? String == "AUS — Australia")
        #expect(display["purchaseDate"] as? String == "2025-10-02T07:06:07.000Z")
        #expect(
            (object["display"] as? [String: Any]).flatMap { $0["data"] as? [String: Any] }?["status"] as? String
                == "1 — active")
        // The payload stays exactly as signed beside the display.
        #expect((nested["data.signedTransactionInfo"]?["payload"] as? [String: Any])?["price"] as? Int == 1990)
    }

    @Test func apiResponsesYieldOneResultPerJWSNamedByPath() throws {
        let t1 = Self.pki.sign(payloadJSON: Self.transaction())
        let r1 = Self.pki.sign(payloadJSON: TestPayloads.renewalInfo())
        let folder = try CLI.temporaryDirectory()
        let files: [(String, String, [String])] = [
            (
                "history.json",
                #"{"revision":"r","bundleId":"b","environment":"Sandbox","hasMore":false,"signedTransactions":["\#(t1)","\#(t1)"]}"#,
                ["signedTransactions[0]", "signedTransactions[1]"]
            ),
            ("info.json", #"{"signedTransactionInfo":"\#(t1)"}"#, ["signedTransactionInfo"]),
            (
                "statuses.json",
                #"{"environment":"Sandbox","bundleId":"b","data":[{"subscriptionGroupIdentifier":"g","lastTransactions":[{"originalTransactionId":"1","status":1,"signedTransactionInfo":"\#(t1)","signedRenewalInfo":"\#(r1)"},{"originalTransactionId":"2","status":2,"signedTransactionInfo":"\#(t1)","signedRenewalInfo":"\#(r1)"}]}]}"#,
                [
                    "data[0].lastTransactions[0].signedRenewalInfo",
                    "data[0].lastTransactions[0].signedTransactionInfo",
                    "data[0].lastTransactions[1].signedRenewalInfo",
                    "data[0].lastTransactions[1].signedTransactionInfo",
                ]
            ),
            (
                "notifications.json",
                #"{"hasMore":false,"notificationHistory":[{"signedPayload":"\#(Self.pki.sign(payloadJSON: TestPayloads.notification()))","sendAttemptResult":"SUCCESS"}]}"#,
                ["notificationHistory[0].signedPayload"]
            ),
        ]
        for (name, body, paths) in files {
            let file = folder.appendingPathComponent(name)
            try CLI.write(body, to: file)
            let result = try CLI.run(["--format", "jsonl", "--root", Self.root, file.path])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            #expect(try result.jsonObjects().map { $0["source"] as? String } == paths.map { "\(file.path): \($0)" })
        }
    }

    @Test func backendExpectationsExitCodes() throws {
        let tokenWith = Self.pki.sign(payloadJSON: Self.transaction(#","appAccountToken":"\#(Self.account)""#))
        let base = ["-q", "--root", Self.root]
        #expect(try CLI.run(base + ["--account-token", Self.account, tokenWith]).status == 0)
        #expect(try CLI.run(base + ["--account-token", "00000000-0000-4000-8000-000000000000", tokenWith]).status == 4)
        #expect(
            try CLI.run(base + ["--device-id", Self.account, tokenWith]).status == 4, "no deviceVerification to check")
        // Expired 2025-01-31: active at 2025-01-15, not at 2025-02-15 nor now.
        #expect(try CLI.run(base + ["--require-active", "--access-at", "2025-01-15", tokenWith]).status == 0)
        #expect(try CLI.run(base + ["--require-active", "--access-at", "2025-02-15", tokenWith]).status == 6)
        let active = Self.pki.sign(
            payloadJSON: Self.transaction(#","expiresDate":4102444800000"#).replacingOccurrences(
                of: #""expiresDate":1738281600000,"#, with: ""))
        #expect(try CLI.run(base + ["--require-active", active]).status == 0)
        let inactive = try CLI.run(["--format", "jsonl", "--root", Self.root, "--require-active", tokenWith])
        #expect(inactive.status == 6)
        let object = try #require(try inactive.jsonObjects().first)
        #expect(object["status"] as? String == "inactive")
        #expect((object["reason"] as? String)?.hasPrefix("active: grants no access: expired 2025-01-31") == true)
        // Device verification on an app transaction: right device passes, another fails.
        let device = "2c9a1f6e-0b8d-4e3a-9c57-6f1e2d3c4b5a"
        let nonce = "0b6d8c4e-2a1f-4e3b-9d5c-7a8b9c0d1e2f"
        let verification = DeviceVerification.expected(nonce: nonce, deviceID: UUID(uuidString: device)!)
        let app = Self.pki.sign(
            payloadJSON:
                #"{"receiptType":"Sandbox","bundleId":"b","appAppleId":1,"receiptCreationDate":1735689600000,"deviceVerificationNonce":"\#(nonce)","deviceVerification":"\#(verification)"}"#
        )
        #expect(try CLI.run(base + ["--device-id", device, app]).status == 0)
        let wrongDevice = try CLI.run(["--format", "jsonl", "--root", Self.root, "--device-id", Self.account, app])
        #expect(wrongDevice.status == 4)
        #expect(
            (try wrongDevice.jsonObjects().first?["reason"] as? String)?.hasPrefix(
                "device-verification: deviceVerification is ") == true)
        for bad in [["--account-token", "nope"], ["--device-id", "123"]] {
            #expect(try CLI.run(bad + [tokenWith]).status == 64)
        }
    }

    @Test func xcodeTokensAreLabelledAndNeedTheirCertificate() throws {
        let certificate = TestPKI.issue(
            CertificateSpec(
                commonName: "StoreKit Testing in Xcode", notBefore: Date(timeIntervalSince1970: 1_697_000_000),
                notAfter: Date(timeIntervalSince1970: 1_728_536_000), isCA: false, keyIdentifiers: false), issuer: nil)
        let payload =
            #"{"transactionId":"0","bundleId":"com.example.app","productId":"pro","purchaseDate":1697679936049.7297,"expiresDate":-62135769600000,"type":"Auto-Renewable Subscription","signedDate":1697679936054.2769,"environment":"Xcode"}"#
        let token = TestPKI.compactJWS(
            headerJSON: #"{"alg":"ES256","kid":"Apple_Xcode_Key","typ":"JWT","x5c":["\#(certificate.base64)"]}"#,
            payloadJSON: payload, key: certificate.key)
        let untrusted = try CLI.run([token])
        #expect(untrusted.status == 2)
        #expect(untrusted.stdout.contains("--root StoreKitTestCertificate.cer"))
        #expect(untrusted.stdout.contains("StoreKit Testing in Xcode token: NOT signed by the App Store"))

        let cer = try CLI.temporaryDirectory().appendingPathComponent("StoreKitTestCertificate.cer")
        try Data(certificate.der).write(to: cer)
        let trusted = try CLI.run(["--root", cer.path, "--environment", "Xcode", token])
        #expect(trusted.status == 0, "\(trusted.stdout)")
        let xcodeVerdict = "VALID — StoreKit Testing in Xcode transaction, NOT signed by the App Store  "
        #expect(trusted.stdout.hasPrefix(xcodeVerdict))
        #expect(trusted.stdout.contains("NOT signed by the App Store"))
        #expect(trusted.stdout.contains("no date (a year-0001 placeholder"))
        let json = try #require(try CLI.run(["--format", "jsonl", "--root", cer.path, token]).jsonObjects().first)
        #expect(json["xcode"] as? Bool == true)
        #expect(json["status"] as? String == "valid")
    }

    @Test func tablesShowMeaningsRelativeDatesAndUnknowns() throws {
        let payload =
            #"{"transactionId":"1","productId":"p","type":"Auto-Renewable Subscription","purchaseDate":1735603200000,"revocationDate":1735689600000,"revocationReason":1,"offerType":7,"price":9990,"currency":"USD","storefront":"USA","signedDate":1735689600000,"brandNewField":"x"}"#
        let result = try CLI.run(["--root", Self.root, Self.pki.sign(payloadJSON: payload)])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let refunded = "grants no access: revoked 2025-01-01 (refunded: issue in the app)"
        #expect(lines[2] == "  Auto-renewable subscription p, purchased 2024-12-31; \(refunded).")
        #expect(lines.contains { $0.contains("revocationReason") && $0.contains("1 — refunded: issue in the app") })
        #expect(lines.contains { $0.contains("offerType") && $0.hasSuffix("7  [value unknown to this version]") })
        #expect(lines.contains { $0.contains("price") && $0.contains("9990  9.99 USD") })
        #expect(lines.contains { $0.contains("storefront") && $0.contains("USA — United States") })
        #expect(lines.contains { $0.contains("brandNewField") && $0.hasSuffix("x  [field unknown to this version]") })
        #expect(
            lines.contains {
                $0.contains("purchaseDate") && $0.contains("2024-12-31T00:00:00.000Z  (") && $0.hasSuffix(" ago)")
            })
        let json = try #require(
            try CLI.run(["--format", "jsonl", "--root", Self.root, Self.pki.sign(payloadJSON: payload)]).jsonObjects()
                .first)
        #expect(json["unknownFields"] as? [String] == ["brandNewField"])
        #expect(json["unknownValues"] as? [String] == ["offerType"])
        #expect((json["summary"] as? String)?.hasSuffix("; \(refunded).") == true)
    }
}

/// Fields and values Apple documents in 2026: each shown with its meaning, none flagged unknown.
@Suite(.timeLimit(.minutes(10))) struct DocumentedIn2026Tests {
    static func inspect(_ payload: String) throws -> [String: Any] {
        let token = AppStoreKnowledgeTests.pki.sign(payloadJSON: payload)
        return try #require(
            try CLI.run(["--format", "jsonl", "--root", AppStoreKnowledgeTests.root, token]).jsonObjects().first)
    }

    @Test func aTransactionsPreviousOriginalTransactionIdIsKnown() throws {
        let json = try Self.inspect(AppStoreKnowledgeTests.transaction(#","previousOriginalTransactionId":"7""#))
        #expect(json["unknownFields"] as? [String] == [])
        #expect((json["display"] as? [String: Any])?["previousOriginalTransactionId"] as? String == "7")
    }

    @Test func anExternalPurchaseTokensNewFieldsAndSubtypesAreKnown() throws {
        for subtype in ["ACTIVE_TOKEN_REMINDER", "CREATED", "UNREPORTED"] {
            let payload =
                #"{"notificationType":"EXTERNAL_PURCHASE_TOKEN","subtype":"\#(subtype)","signedDate":1735689600000,"#
                + #""externalPurchaseToken":{"externalPurchaseId":"e","tokenCreationDate":1735689600000,"#
                + #""tokenExpirationDate":1738281600000,"tokenType":"ACQUISITION","appAppleId":1,"bundleId":"b"}}"#
            let json = try Self.inspect(payload)
            #expect(json["unknownFields"] as? [String] == [], "\(subtype)")
            #expect(json["unknownValues"] as? [String] == [], "\(subtype)")
            let display = try #require(json["display"] as? [String: Any])
            let token = try #require(display["externalPurchaseToken"] as? [String: Any])
            #expect(token["tokenType"] as? String == "ACQUISITION — custom link: acquiring a customer")
            #expect((token["tokenExpirationDate"] as? String)?.hasPrefix("2025-01-31T00:00:00.000Z") == true)
        }
        let unknown = try Self.inspect(
            #"{"notificationType":"EXTERNAL_PURCHASE_TOKEN","subtype":"NEWER","signedDate":1735689600000,"#
                + #""externalPurchaseToken":{"externalPurchaseId":"e","tokenType":"LATER","bundleId":"b"}}"#)
        #expect(Set(unknown["unknownValues"] as? [String] ?? []) == ["subtype", "externalPurchaseToken.tokenType"])
    }

    @Test(arguments: ["MIGRATION", "MIGRATE"])
    func migrationIsKnownInBothSpellings(_ type: String) throws {
        let json = try Self.inspect(
            #"{"notificationType":"\#(type)","signedDate":1735689600000,"data":{"bundleId":"b"}}"#)
        #expect(json["unknownValues"] as? [String] == [], "\(type)")
        #expect(
            ((json["display"] as? [String: Any])?["notificationType"] as? String)?.contains("subscription migrated")
                == true)
    }
}
