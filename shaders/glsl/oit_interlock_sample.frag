// oit_interlock.frag with sample shading, as nvpro's vk_order_independent_transparency runs it
// for MSAA: one sorted list per sample (indexed with gl_SampleID), sample interlock so that only
// invocations sharing a sample are ordered, and tail blending into the sample's colour.
// expect: model=Fragment interlock=sample-ordered begin=1 end=1 begin_divergent=false end_divergent=false per_sample=true writes_memory=true accesses_memory=true color=true early=true sample_mask=false
#version 460
#extension GL_ARB_fragment_shader_interlock : require

layout(sample_interlock_ordered) in;
layout(early_fragment_tests) in;

#define OIT_LAYERS 4
#define EMPTY_DEPTH 0xFFFFFFFFu

layout(std430, binding = 0) coherent buffer ABuffer {
    uvec2 fragments[];
};

layout(push_constant) uniform Viewport {
    uint width;
    uint samples;
} viewport;

layout(location = 0) in vec4 inColor;
layout(location = 0) out vec4 outColor;

void main() {
    vec4 premultiplied = vec4(inColor.rgb * inColor.a, inColor.a);
    uvec2 fragment = uvec2(packUnorm4x8(premultiplied), floatBitsToUint(gl_FragCoord.z));
    ivec2 pixel = ivec2(gl_FragCoord.xy);
    uint list = (uint(pixel.y) * viewport.width + uint(pixel.x)) * viewport.samples + uint(gl_SampleID);
    uint base = list * OIT_LAYERS;

    beginInvocationInterlockARB();
    for (uint i = 0; i < OIT_LAYERS; i++) {
        uvec2 stored = fragments[base + i];
        if (fragment.y < stored.y) {
            fragments[base + i] = fragment;
            fragment = stored;
        }
    }
    endInvocationInterlockARB();

    if (fragment.y == EMPTY_DEPTH) {
        discard;
    }
    outColor = unpackUnorm4x8(fragment.x);
}
