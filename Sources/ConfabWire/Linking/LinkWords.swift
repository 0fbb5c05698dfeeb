import ConfabCrypto
import ConfabModel

/// The confirmation words of a link (Protocol.md §20.10): five words each side derives from
/// its own view of the handshake. A man in the middle runs two handshakes with different
/// ephemeral keys, so the two machines show different words and their people stop.
public enum LinkWords {
    public static let count = 5
    static let domain: [UInt8] = Array("confab/link-words/v1".utf8) + [0]

    /// `BLAKE2b-256(domain ‖ H ‖ client key ‖ server key)`, its first five bytes as words.
    public static func words(transcriptHash: [UInt8], client: NodeID, server: NodeID) -> [String] {
        digest(transcriptHash: transcriptHash, client: client, server: server).prefix(count).map { list[Int($0)] }
    }

    static func digest(transcriptHash: [UInt8], client: NodeID, server: NodeID) -> [UInt8] {
        Hash.blake2b(domain + transcriptHash + client.bytes + server.bytes, length: 32)
    }

    /// 256 plain English words of 3 to 8 letters, in alphabetical order; byte b is list[b].
    public static let list: [String] = [
        "acid", "acorn", "actor", "adult", "agent", "alarm", "album", "alert",
        "alley", "amber", "angle", "ankle", "apple", "apron", "arch", "arena",
        "armor", "arrow", "atlas", "attic", "autumn", "bacon", "badge", "bagel",
        "baker", "bamboo", "banana", "banjo", "barn", "basket", "beach", "beard",
        "beaver", "bell", "bench", "berry", "bison", "blanket", "blossom", "boat",
        "bonnet", "book", "bottle", "bowl", "brain", "branch", "bread", "brick",
        "bridge", "broom", "bucket", "button", "cabin", "cactus", "camel", "candle",
        "canoe", "canyon", "carpet", "carrot", "castle", "cattle", "cedar", "cello",
        "chair", "chalk", "cheese", "cherry", "chess", "circle", "clock", "cloud",
        "clover", "coach", "coast", "cobra", "coffee", "comet", "copper", "coral",
        "cotton", "cradle", "crane", "cricket", "crown", "cup", "curtain", "daisy",
        "dancer", "desert", "diamond", "dinner", "doctor", "dolphin", "donkey", "dragon",
        "drum", "duck", "dune", "eagle", "earth", "easel", "echo", "elbow",
        "engine", "falcon", "farmer", "feather", "fence", "fern", "ferry", "fiddle",
        "finch", "flag", "flute", "forest", "fox", "frog", "garden", "garlic",
        "gecko", "ginger", "glacier", "globe", "goat", "grape", "gravel", "guitar",
        "hammer", "harbor", "harp", "hazel", "helmet", "heron", "hill", "honey",
        "hornet", "horse", "igloo", "island", "ivory", "jacket", "jaguar", "jelly",
        "jigsaw", "jungle", "kayak", "kettle", "kitten", "koala", "ladder", "lagoon",
        "lake", "lantern", "lemon", "lizard", "llama", "magnet", "mango", "maple",
        "marble", "meadow", "melon", "mirror", "mitten", "monkey", "moose", "muffin",
        "napkin", "needle", "nest", "noodle", "number", "oasis", "ocean", "olive",
        "onion", "orange", "orbit", "otter", "owl", "paddle", "palace", "panda",
        "parrot", "peach", "peanut", "pebble", "pencil", "pepper", "piano", "pigeon",
        "pillow", "pine", "planet", "plum", "pocket", "pony", "potato", "pumpkin",
        "puppet", "quartz", "quilt", "rabbit", "radio", "raisin", "raven", "ribbon",
        "river", "robin", "rocket", "saddle", "salmon", "sandal", "saturn", "scarf",
        "seal", "shadow", "shell", "shovel", "silver", "sketch", "sled", "snail",
        "spider", "spoon", "squid", "statue", "stone", "stove", "sugar", "summer",
        "sunset", "swan", "table", "tiger", "tomato", "tractor", "tulip", "tunnel",
        "turtle", "valley", "velvet", "violin", "wagon", "walnut", "walrus", "whale",
        "wheat", "willow", "window", "winter", "wizard", "yacht", "zebra", "zipper",
    ]
}
