import { Backend, m, type MethodSpec } from "./backend.js";
import { add, deepcopy, dict, intKey, truthy } from "./py-ops.js";
import {
  newDict,
  pyEqual,
  pyIn,
  pyStr,
  type PyDict,
  type PyValue,
  dictEntries,
  dictValues,
  setItem,
} from "./py-value.js";

/**
 * Port of upstream's `TwitterAPI` (`posting_api.py`). Tweets are keyed by int ids upstream; we
 * key them by the id's text and look ids up as Python would (`1 == 1.0`, never `"1"`). Upstream's
 * mutable defaults (`tags=[]`, `mentions=[]`) are shared between calls, as there.
 */
const DEFAULT: PyDict = dict([
  ["username", "john"],
  ["password", "john123"],
  ["authenticated", false],
  ["tweets", newDict()],
  ["comments", newDict()],
  ["retweets", newDict()],
  ["following_list", ["alice", "bob"]],
  ["tweet_counter", 0],
]);

const err = (msg: string): PyDict => dict([["error", msg]]);

export class TwitterAPI extends Backend {
  readonly className = "TwitterAPI";
  username: PyValue = "john";
  password: PyValue = "john123";
  authenticated: PyValue = false;
  tweets: PyDict = newDict();
  comments: PyDict = newDict();
  retweets: PyDict = newDict();
  following_list: PyValue[] = [];
  tweet_counter: PyValue = 0;
  private cached?: Record<string, MethodSpec>;

  loadScenario(config: PyDict): void {
    const d = deepcopy(DEFAULT);
    const get = (k: string) => (k in config ? config[k]! : d[k]!);
    this.username = get("username");
    this.password = get("password");
    this.authenticated = get("authenticated");
    this.tweets = newDict();
    for (const [k, v] of dictEntries(get("tweets") as PyDict))
      setItem(this.tweets, String(Number.parseInt(k, 10)), v);
    this.comments = get("comments") as PyDict;
    this.retweets = get("retweets") as PyDict;
    this.following_list = get("following_list") as PyValue[];
    this.tweet_counter = get("tweet_counter");
  }

  publicState(): Record<string, PyValue> {
    return {
      username: this.username,
      password: this.password,
      authenticated: this.authenticated,
      tweets: this.tweets,
      comments: this.comments,
      retweets: this.retweets,
      following_list: this.following_list,
      tweet_counter: this.tweet_counter,
    };
  }

  private tweet(id: PyValue): PyDict | undefined {
    const k = intKey(id);
    return k !== undefined && k in this.tweets ? (this.tweets[k] as PyDict) : undefined;
  }

  methods(): Record<string, MethodSpec> {
    return (this.cached ??= this.build());
  }

  private build(): Record<string, MethodSpec> {
    const auth = () => truthy(this.authenticated);
    const user = () => pyStr(this.username);
    const sharedTags: PyValue[] = [];
    const sharedMentions: PyValue[] = [];
    return {
      authenticate_twitter: m([["username"], ["password"]], ({ username, password }) => {
        if (pyEqual(username!, this.username) && pyEqual(password!, this.password)) {
          this.authenticated = true;
          return dict([["authentication_status", true]]);
        }
        return dict([["authentication_status", false]]);
      }),
      posting_get_login_status: m([], () => dict([["login_status", auth()]])),
      post_tweet: m(
        [["content"], ["tags", sharedTags], ["mentions", sharedMentions]],
        ({ content, tags, mentions }) => {
          if (!auth()) return err("User not authenticated. Please authenticate before posting.");
          const tweet = dict([
            ["id", this.tweet_counter],
            ["username", this.username],
            ["content", content!],
            ["tags", tags!],
            ["mentions", mentions!],
          ]);
          setItem(this.tweets, String(this.tweet_counter), tweet);
          this.tweet_counter = add(this.tweet_counter, 1);
          return tweet;
        },
      ),
      retweet: m([["tweet_id"]], ({ tweet_id }) => {
        if (!auth()) return err("User not authenticated. Please authenticate before retweeting.");
        if (!this.tweet(tweet_id!)) return err(`Tweet with ID ${pyStr(tweet_id!)} not found.`);
        if (!(user() in this.retweets)) setItem(this.retweets, user(), []);
        const mine = this.retweets[user()] as PyValue[];
        if (pyIn(tweet_id!, mine)) return dict([["retweet_status", "Already retweeted"]]);
        mine.push(tweet_id!);
        return dict([["retweet_status", "Successfully retweeted"]]);
      }),
      comment: m([["tweet_id"], ["comment_content"]], ({ tweet_id, comment_content }) => {
        if (!auth()) return err("User not authenticated. Please authenticate before commenting.");
        if (!this.tweet(tweet_id!)) return err(`Tweet with ID ${pyStr(tweet_id!)} not found.`);
        const k = intKey(tweet_id!)!;
        if (!(k in this.comments)) setItem(this.comments, k, []);
        (this.comments[k] as PyValue[]).push(
          dict([
            ["username", this.username],
            ["content", comment_content!],
          ]),
        );
        return dict([["comment_status", "Comment added successfully"]]);
      }),
      mention: m([["tweet_id"], ["mentioned_usernames"]], ({ tweet_id, mentioned_usernames }) => {
        const t = this.tweet(tweet_id!);
        if (!t) return err(`Tweet with ID ${pyStr(tweet_id!)} not found.`);
        (t.mentions as PyValue[]).push(...(mentioned_usernames as PyValue[]));
        return dict([["mention_status", "Users mentioned successfully"]]);
      }),
      follow_user: m([["username_to_follow"]], ({ username_to_follow }) => {
        if (!auth()) return err("User not authenticated. Please authenticate before following.");
        if (pyIn(username_to_follow!, this.following_list)) return dict([["follow_status", false]]);
        this.following_list.push(username_to_follow!);
        return dict([["follow_status", true]]);
      }),
      list_all_following: m([], () => {
        if (!auth()) return err("User not authenticated. Please authenticate before listing following.");
        return dict([["following_list", this.following_list]]);
      }),
      unfollow_user: m([["username_to_unfollow"]], ({ username_to_unfollow }) => {
        if (!auth()) return err("User not authenticated. Please authenticate before unfollowing.");
        const i = this.following_list.findIndex((x) => pyEqual(x, username_to_unfollow!));
        if (i < 0) return dict([["unfollow_status", false]]);
        this.following_list.splice(i, 1);
        return dict([["unfollow_status", true]]);
      }),
      get_tweet: m(
        [["tweet_id"]],
        ({ tweet_id }) => this.tweet(tweet_id!) ?? err(`Tweet with ID ${pyStr(tweet_id!)} not found.`),
      ),
      get_user_tweets: m([["username"]], ({ username }) =>
        dictValues(this.tweets).filter((t) => pyEqual((t as PyDict).username!, username!)),
      ),
      search_tweets: m([["keyword"]], ({ keyword }) => {
        const k = pyStr(keyword!).toLowerCase();
        return dictValues(this.tweets).filter((t) => {
          const tw = t as PyDict;
          return (
            pyStr(tw.content!).toLowerCase().includes(k) ||
            (tw.tags as PyValue[]).map((x) => pyStr(x).toLowerCase()).includes(k)
          );
        });
      }),
      get_tweet_comments: m([["tweet_id"]], ({ tweet_id }) => {
        if (!this.tweet(tweet_id!)) return err(`Tweet with ID ${pyStr(tweet_id!)} not found.`);
        return this.comments[intKey(tweet_id!)!] ?? [];
      }),
      get_user_stats: m([["username"]], ({ username }) => {
        const count = dictValues(this.tweets).filter((t) =>
          pyEqual((t as PyDict).username!, username!),
        ).length;
        const following = pyEqual(username!, this.username) ? this.following_list.length : 0;
        const rt =
          typeof username === "string" && username in this.retweets
            ? (this.retweets[username] as PyValue[]).length
            : 0;
        return dict([
          ["tweet_count", count],
          ["following_count", following],
          ["retweet_count", rt],
        ]);
      }),
    };
  }
}
