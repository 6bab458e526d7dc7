import Foundation
import StrictJSONParser
import Testing

@Suite struct StrictJSONTests {
    /// The judge must refuse what lax parsers accept, or the output tests prove nothing.
    @Test(arguments: [
        #"{"a":1,}"#, #"[1,]"#, #"{"a":01}"#, #"{"a":-}"#, #"{"a":1.}"#, #"{"a":"\x"}"#, "{\"a\":\"\u{1}\"}",
        "\u{FEFF}{}", #"{"a":NaN}"#, #"{"a":1} x"#, "{\"a\":\"\n\"}",
    ])
    func refusesWhatIsNotJSON(_ text: String) {
        #expect(throws: StrictJSON.Failure.self) { try StrictJSON.parse(Array(text.utf8)) }
    }

    @Test func acceptsJSON() throws {
        let value = try StrictJSON.parse(Array(#" {"a":[1,-0.5e+3,true,false,null,"\u00e9\n\"",{}],"b":[]} "#.utf8))
        #expect((value as? [String: Any])?["b"] as? [Any] != nil)
        #expect(try StrictJSON.lines("{\"a\":1}\n{\"b\":2}\n").count == 2)
        #expect(throws: StrictJSON.Failure.self) { try StrictJSON.lines("{\"a\":1}\n\n") }
    }
}
